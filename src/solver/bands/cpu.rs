//! Which compiled copy of the search this CPU may run, as zero-sized token types.
//!
//! The fast copy of the search executes AVX2 and BMI2 instructions, which are undefined
//! behaviour on a CPU without them. So the code that executes them is reachable only with a
//! token in hand: [`V3`] (and [`V3Pext`], made from one) have a private field, so no code
//! outside this module can make one, and the only code here that does is [`V3::detect`],
//! after checking the CPU. The rest of the solver is generic over [`Cpu`]: holding a `C: Cpu`
//! whose [`Cpu::v3`] answers `Some` is the proof a call into the fast code needs, and its
//! `// SAFETY:` comments say so. The tokens take no space and no time: each `Cpu::v3` or
//! `Cpu::pext` check in the generic code is resolved when it is compiled for a token type.

/// A copy of the search, named by its token type: [`Portable`], [`V3`] or [`V3Pext`].
pub(super) trait Cpu: Copy {
    /// The proof that this CPU has the x86-64-v3 features ([`V3_FEATURES`]), for the copies
    /// that use them.
    #[cfg(target_arch = "x86_64")]
    fn v3(self) -> Option<V3>;

    /// The proof that this CPU has BMI2, for the copy that uses its `pext` ([`V3Pext`]).
    #[cfg(target_arch = "x86_64")]
    fn pext(self) -> Option<V3Pext>;
}

/// The copy compiled for the baseline of the target: every CPU may run it, so anyone may make
/// this token.
#[derive(Clone, Copy, Debug)]
pub(super) struct Portable;

/// Proof that the running CPU has the x86-64-v3 bit instructions and AVX2 ([`V3_FEATURES`]).
/// Made only by [`V3::detect`] (the field is private to this module).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(super) struct V3(());

/// A [`V3`] for the copy that also uses BMI2 `pext` (part of x86-64-v3, so the same proof),
/// chosen where `pext` is fast ([`pext_is_fast`]). Made only from a [`V3`].
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub(super) struct V3Pext(());

impl Cpu for Portable {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn v3(self) -> Option<V3> {
        None
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn pext(self) -> Option<V3Pext> {
        None
    }
}

#[cfg(target_arch = "x86_64")]
impl V3 {
    /// The token, if the running CPU has every feature in [`V3_FEATURES`] (each check is a
    /// cached atomic load).
    pub(super) fn detect() -> Option<V3> {
        use std::arch::is_x86_feature_detected as has;
        // `is_x86_feature_detected!` and `#[target_feature]` need literals: this list, the
        // `#[target_feature]` attributes in `bands` and `V3_FEATURES` change together.
        let all = has!("popcnt") && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("avx2");
        all.then_some(V3(()))
    }

    /// The same proof, for the copy that uses `pext`.
    pub(super) fn with_pext(self) -> V3Pext {
        V3Pext(())
    }
}

#[cfg(target_arch = "x86_64")]
impl Cpu for V3 {
    #[inline(always)]
    fn v3(self) -> Option<V3> {
        Some(self)
    }

    #[inline(always)]
    fn pext(self) -> Option<V3Pext> {
        None
    }
}

#[cfg(target_arch = "x86_64")]
impl Cpu for V3Pext {
    #[inline(always)]
    fn v3(self) -> Option<V3> {
        Some(V3(()))
    }

    #[inline(always)]
    fn pext(self) -> Option<V3Pext> {
        Some(self)
    }
}

/// The copy of the search this CPU runs, with its token.
#[derive(Clone, Copy, Debug)]
pub(super) enum Level {
    /// The baseline copy.
    Portable(Portable),
    /// The x86-64-v3 copy, with table lookups for the minirow occupancy.
    #[cfg(target_arch = "x86_64")]
    V3(V3),
    /// The x86-64-v3 copy with `pext` for the minirow occupancy.
    #[cfg(target_arch = "x86_64")]
    V3Pext(V3Pext),
}

/// The copy this CPU runs, decided on the first call (feature detection and CPUID), then one
/// atomic load per call.
pub(super) fn level() -> Level {
    static LEVEL: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v3) = V3::detect() {
                return if fast_pext() {
                    Level::V3Pext(v3.with_pext())
                } else {
                    Level::V3(v3)
                };
            }
        }
        Level::Portable(Portable)
    })
}

/// The features of the x86-64-v3 copy, as [`V3::detect`] checks them.
#[cfg(target_arch = "x86_64")]
const V3_FEATURES: [&str; 5] = ["popcnt", "bmi1", "bmi2", "lzcnt", "avx2"];

/// The CPU features the copy of the search chosen on this machine uses beyond the baseline.
pub(in crate::solver) fn runtime_features() -> &'static [&'static str] {
    match level() {
        Level::Portable(_) => &[],
        #[cfg(target_arch = "x86_64")]
        Level::V3(_) | Level::V3Pext(_) => &V3_FEATURES,
    }
}

/// Whether `pext` is fast: one micro-op on Intel and on AMD since Zen 3, but microcoded
/// with a latency of up to hundreds of cycles on AMD Zen 1/2 and Hygon (families 17h, 18h),
/// where the table lookups of `shrink` are faster. Reads CPUID (which traps to the host in a
/// virtual machine): called once, by [`level`].
#[cfg(target_arch = "x86_64")]
fn fast_pext() -> bool {
    use std::arch::x86_64::__cpuid;
    // SAFETY: CPUID exists on every x86-64 CPU; leaves 0 and 1 always exist. (Newer Rust
    // declares `__cpuid` safe; the block keeps our minimum supported version building.)
    #[allow(unused_unsafe)]
    let (vendor, version) = unsafe { (__cpuid(0), __cpuid(1).eax) };
    let mut id = [0u8; 12];
    for (part, reg) in id
        .chunks_exact_mut(4)
        .zip([vendor.ebx, vendor.edx, vendor.ecx])
    {
        part.copy_from_slice(&reg.to_le_bytes());
    }
    pext_is_fast(&id, version)
}

/// [`fast_pext`] from the CPUID vendor string and the family/model word (leaf 1, EAX).
#[cfg(target_arch = "x86_64")]
fn pext_is_fast(vendor: &[u8; 12], version: u32) -> bool {
    let base = version >> 8 & 0xF;
    let family = if base == 0xF {
        base + (version >> 20 & 0xFF)
    } else {
        base
    };
    let amd_like = vendor == b"AuthenticAMD" || vendor == b"HygonGenuine";
    !amd_like || family >= 0x19
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn pext_is_avoided_where_it_is_microcoded() {
        // CPUID leaf-1 EAX of real parts: Intel Sapphire Rapids, AMD Zen 2 (EPYC 7742),
        // Zen 3 (EPYC 7763), Zen 4 (Ryzen 7950X), Hygon Dhyana.
        assert!(pext_is_fast(b"GenuineIntel", 0x0008_06F8));
        assert!(!pext_is_fast(b"AuthenticAMD", 0x0083_0F10));
        assert!(pext_is_fast(b"AuthenticAMD", 0x00A0_0F11));
        assert!(pext_is_fast(b"AuthenticAMD", 0x00A6_0F12));
        assert!(!pext_is_fast(b"HygonGenuine", 0x0090_0F01));
    }

    #[test]
    fn runtime_features_follow_the_level() {
        let level = level();
        assert_eq!(
            runtime_features().is_empty(),
            matches!(level, Level::Portable(_))
        );
        #[cfg(target_arch = "x86_64")]
        assert_eq!(V3::detect().is_some(), !runtime_features().is_empty());
    }
}
