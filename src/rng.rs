//! The crate's one random number generator: ChaCha8, the same output words on every platform and
//! in every `rand` version, with the bounded draws and shuffles defined here.
//!
//! Reproducibility is a promise to users (`generate --seed` datasets, `bench --permute` passes),
//! so nothing here may change what a given seed draws. Two streams are pinned by outputs that
//! users already hold, and each keeps the construction and bounded-draw rule it was published
//! with:
//!
//! | user        | construction                         | bounded draw                   |
//! |-------------|--------------------------------------|--------------------------------|
//! | `generate`  | [`Rng::keyed`] (seed, label, index)  | [`Rng::below`] (multiply)      |
//! | transforms  | [`Rng::from_u64`] (seed, stream)     | [`Rng::below_by_remainder`]    |
//!
//! New users should take [`Rng::keyed`] with their own label and [`Rng::below`]/[`Rng::shuffle`].

use rand_chacha::rand_core::{Rng as _, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A seeded, portable random stream (ChaCha8). Only 32-bit output words are used, so its draws
/// depend on nothing but the ChaCha8 keystream.
#[derive(Debug, Clone)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    /// The stream keyed by `seed` (little-endian, key bytes 0..8) and `label` (bytes 8..24; the
    /// rest zero), with stream number `stream`: 2⁶⁴ independent streams per seed and label, so
    /// item `i` of a run can draw from stream `i` on any thread.
    pub fn keyed(seed: u64, label: &[u8; 16], stream: u64) -> Rng {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        key[8..24].copy_from_slice(label);
        let mut rng = ChaCha8Rng::from_seed(key);
        rng.set_stream(stream);
        Rng(rng)
    }

    /// The stream whose key `rand_core`'s `seed_from_u64` expands from `seed` (a PCG32 sequence),
    /// with stream number `stream`. Kept for the transform streams, which were published this way.
    pub fn from_u64(seed: u64, stream: u64) -> Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Rng(rng)
    }

    /// The next 32-bit output word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// A uniform integer in `0..n` (`n` = 0 is taken as 1), by Lemire's multiply-and-reject:
    /// the high half of `word · n`, redrawn while the low half is below `2³² mod n`.
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        let n = n.max(1);
        let threshold = n.wrapping_neg() % n;
        loop {
            let product = u64::from(self.next_u32()) * u64::from(n);
            if (product as u32) >= threshold {
                return (product >> 32) as u32;
            }
        }
    }

    /// Fisher–Yates shuffle drawing with [`Rng::below`].
    #[inline]
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// A uniform integer in `0..n` (`n` > 0) by remainder: `word % n`, redrawn while the word is
    /// above the largest multiple of `n` that fits. The transform streams' rule.
    #[inline]
    pub fn below_by_remainder(&mut self, n: u32) -> u32 {
        let zone = u32::MAX - (u32::MAX - n + 1) % n;
        loop {
            let x = self.next_u32();
            if x <= zone {
                return x % n;
            }
        }
    }

    /// Fisher–Yates shuffle drawing with [`Rng::below_by_remainder`].
    #[inline]
    pub fn shuffle_by_remainder<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below_by_remainder(i as u32 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LABEL: &[u8; 16] = b"sudoku-batch gen";

    #[test]
    fn streams_are_fixed_by_seed_label_and_stream() {
        let draw = |mut rng: Rng| (0..8).map(|_| rng.below(1000)).collect::<Vec<_>>();
        assert_eq!(draw(Rng::keyed(1, LABEL, 0)), draw(Rng::keyed(1, LABEL, 0)));
        assert_ne!(draw(Rng::keyed(1, LABEL, 0)), draw(Rng::keyed(1, LABEL, 1)));
        assert_ne!(draw(Rng::keyed(1, LABEL, 0)), draw(Rng::keyed(2, LABEL, 0)));
        assert_ne!(
            draw(Rng::keyed(1, LABEL, 0)),
            draw(Rng::keyed(1, b"another label..!", 0))
        );
        assert_ne!(draw(Rng::from_u64(1, 0)), draw(Rng::from_u64(1, 1)));
    }

    #[test]
    fn draws_are_pinned() {
        // A change of keystream, key layout or draw rule changes users' datasets: it shows here.
        let mut rng = Rng::keyed(7, LABEL, 3);
        let words: Vec<u32> = (0..3).map(|_| rng.next_u32()).collect();
        let below: Vec<u32> = (0..6).map(|_| rng.below(9)).collect();
        let mut rng = Rng::from_u64(7, 3);
        let remainder: Vec<u32> = (0..6).map(|_| rng.below_by_remainder(9)).collect();
        assert_eq!(
            (words, below, remainder),
            (
                PINNED_WORDS.to_vec(),
                PINNED_BELOW.to_vec(),
                PINNED_REMAINDER.to_vec()
            )
        );
    }

    const PINNED_WORDS: [u32; 3] = [4022944677, 1211289805, 1520126848];
    const PINNED_BELOW: [u32; 6] = [1, 8, 3, 6, 7, 1];
    const PINNED_REMAINDER: [u32; 6] = [3, 0, 8, 0, 3, 0];

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = Rng::keyed(5, LABEL, 0);
        for n in 1..=10u32 {
            let mut seen = vec![false; n as usize];
            for _ in 0..500 {
                let x = rng.below(n);
                assert!(x < n);
                seen[x as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "{n}");
        }
        assert!((0..200).all(|_| rng.below(0) == 0));
        let mut items: Vec<u32> = (0..20).collect();
        rng.shuffle(&mut items);
        items.sort_unstable();
        assert_eq!(items, (0..20).collect::<Vec<u32>>());
    }

    #[test]
    fn below_by_remainder_is_in_range_and_covers_it() {
        // (moved from transform.rs with the rule it tests)
        let mut rng = Rng::from_u64(5, 0);
        for n in 1..=10u32 {
            let mut seen = vec![false; n as usize];
            for _ in 0..500 {
                let x = rng.below_by_remainder(n);
                assert!(x < n);
                seen[x as usize] = true;
            }
            assert!(seen.iter().all(|&s| s), "{n}");
        }
        let mut items: Vec<u32> = (0..20).collect();
        rng.shuffle_by_remainder(&mut items);
        items.sort_unstable();
        assert_eq!(items, (0..20).collect::<Vec<u32>>());
    }
}
