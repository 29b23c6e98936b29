//! What changed on a rating path since a rule last found nothing: the candidates removed since
//! then, so the rule can skip the patterns that cannot have become a hint.
//!
//! Along a path candidates are only ever removed. Most rules find a pattern from the
//! candidates of a few cells (its "region") and eliminate candidates elsewhere. A pattern whose
//! region lost no candidate since the rule last came up empty was there then, with at least the
//! eliminations it has now, so it was no hint then and is none now. A rule therefore only needs
//! the patterns whose region meets a removed candidate, visited in its usual order: the first
//! hint it finds is the one the full scan would find.

use super::board::{cells, Board, Cells, ALL, PEERS};

/// Candidates removed (per digit) since some earlier state of the same path.
#[derive(Clone, Copy, Debug)]
pub struct Changed {
    /// `removed[d - 1]`: the cells that lost candidate `d`.
    removed: [Cells; 9],
    /// The cells that lost any candidate (placed cells included).
    cells: Cells,
}

impl Changed {
    /// Everything counts as changed: the rule scans every pattern.
    pub const ALL: Changed = Changed {
        removed: [ALL; 9],
        cells: ALL,
    };

    /// The candidates that `before` (a board's `pos`) has and `b` has not.
    pub fn since(before: &[Cells; 9], b: &Board) -> Changed {
        let mut removed = [0; 9];
        let mut any = 0;
        for d in 0..9 {
            removed[d] = before[d] & !b.pos[d];
            any |= removed[d];
        }
        Changed {
            removed,
            cells: any,
        }
    }

    /// Whether some candidate of a cell in `region` was removed.
    #[inline]
    pub fn cells_in(&self, region: Cells) -> bool {
        self.cells & region != 0
    }

    /// The digits (mask, bit `d - 1`) removed from some cell of `region`.
    #[inline]
    pub fn digits_in(&self, region: Cells) -> u16 {
        if self.cells & region == 0 {
            return 0;
        }
        let mut m = 0;
        for (i, &r) in self.removed.iter().enumerate() {
            if r & region != 0 {
                m |= 1 << i;
            }
        }
        m
    }

    /// Whether candidate `d` was removed anywhere.
    #[inline]
    pub fn digit(&self, d: u8) -> bool {
        self.removed[d as usize - 1] != 0
    }

    /// The cells that lost a candidate.
    #[inline]
    pub fn cells(&self) -> Cells {
        self.cells
    }

    /// The candidates cell `c` lost (bit `d - 1` for digit `d`); with the cell's candidates now,
    /// its candidates on the earlier state (a cell placed since lost all of them).
    #[inline]
    pub fn removed_at(&self, c: usize) -> u16 {
        let mut m = 0;
        for (d, r) in self.removed.iter().enumerate() {
            m |= ((r >> c) as u16 & 1) << d;
        }
        m
    }

    /// The changed cells and their peers: every cell sharing a house with a change.
    pub fn near(&self) -> Cells {
        if self.cells == ALL {
            return ALL;
        }
        let mut n = self.cells;
        for c in cells(self.cells) {
            n |= PEERS[c];
        }
        n
    }
}

/// Per rule, the candidates of the last state on which it found nothing (or none yet).
pub(super) struct Memo<const N: usize> {
    quiet: [Option<[Cells; 9]>; N],
}

impl<const N: usize> Memo<N> {
    /// No rule has come up empty yet.
    pub(super) fn new() -> Self {
        Memo { quiet: [None; N] }
    }

    /// What changed for rule `i` since it last found nothing.
    pub(super) fn changed(&self, i: usize, b: &Board) -> Changed {
        match &self.quiet[i] {
            Some(before) => Changed::since(before, b),
            None => Changed::ALL,
        }
    }

    /// Rule `i` found nothing on `b`.
    pub(super) fn quiet(&mut self, i: usize, b: &Board) {
        self.quiet[i] = Some(b.pos);
    }

    /// Rule `i` cut its search short on `b`: its "nothing" proves nothing about later states.
    pub(super) fn forget(&mut self, i: usize) {
        self.quiet[i] = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::bit;

    #[test]
    fn since_reports_exactly_the_removed_candidates() {
        let mut b = Board::from_parts([0; 81], [0x1ff; 81]);
        let before = b.pos;
        assert!(!Changed::since(&before, &b).cells_in(ALL));
        b.eliminate(10, 4);
        let ch = Changed::since(&before, &b);
        assert_eq!(ch.cells(), 1 << 10);
        assert!(ch.digit(4) && !ch.digit(5));
        assert_eq!((ch.removed_at(10), ch.removed_at(11)), (bit(4), 0));
        assert!(ch.digits_in(1 << 10) & bit(4) != 0 && ch.digits_in(1 << 11) & bit(4) == 0);
        assert_eq!((ch.digits_in(1 << 10), ch.digits_in(1 << 11)), (bit(4), 0));
        assert_eq!(ch.near(), PEERS[10] | 1 << 10);
        b.place(0, 5);
        let ch = Changed::since(&before, &b);
        assert!(ch.cells_in(1 << 0) && ch.digits_in(PEERS[0]) & bit(5) != 0);
        assert_eq!(ch.digits_in(PEERS[0]), bit(4) | bit(5));
        assert_eq!(ch.digits_in(1 << 0), 0x1ff);
        assert_eq!(
            ch.removed_at(0),
            0x1ff,
            "a placed cell lost every candidate"
        );
        assert_eq!(Changed::ALL.near(), ALL);
    }
}
