mod robust;
