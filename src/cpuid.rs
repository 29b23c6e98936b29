//! CPUID's extended leaves (0x8000_0000 and up), read only where the CPU says they exist: the
//! one place outside the solver's token types that executes CPUID.

/// The registers of extended leaf `leaf`, or `None` when the CPU's highest extended leaf is
/// below it.
// Newer Rust declares `__cpuid` safe to call; the `unsafe` blocks keep the minimum supported
// version (`rust-version` in Cargo.toml) building.
#[allow(unused_unsafe)]
pub(crate) fn extended(leaf: u32) -> Option<std::arch::x86_64::CpuidResult> {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86_64 CPU, and leaf 0x8000_0000 (the highest extended
    // leaf) on every one since the first.
    let max_leaf = unsafe { __cpuid(0x8000_0000) }.eax;
    // SAFETY: as above, and `leaf` is read only when the CPU says it exists.
    (leaf <= max_leaf).then(|| unsafe { __cpuid(leaf) })
}

#[cfg(test)]
mod tests {
    #[test]
    fn leaves_beyond_the_highest_are_not_read() {
        let max = super::extended(0x8000_0000)
            .expect("leaf 0x8000_0000 always exists")
            .eax;
        assert!(max >= 0x8000_0000);
        assert!(super::extended(max).is_some());
        assert!(super::extended(max + 1).is_none());
    }
}
