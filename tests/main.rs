mod solvers;
