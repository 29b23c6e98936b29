//! Aligned pair exclusion (6.2) and aligned triple exclusion (7.5): candidate combinations of
//! two (three) cells that would empty a cell seeing all of them (bivalue for pairs, two or three
//! candidates for triples) or repeat a digit in a shared house are impossible; a digit with no
//! possible combination left is eliminated.

use super::board::{bit, cells, digits, holds, Board, Cells, PEERS};
use super::changed::Changed;
use super::scale::Technique;
use super::Step;

/// Aligned pair exclusion over every pair of candidate cells, in SE's row-major pair order.
///
/// A pair's hint depends on the candidates of its two cells and their common peers, and on
/// whether a peer of either cell is a naked single. Only pairs where one of those changed are
/// looked at: a cell that changed, or a peer of a changed cell that is now a naked single or
/// placed.
pub fn aligned_pair(b: &Board, changed: &Changed) -> Option<Step> {
    let biv = b.bivalue();
    let classes = Classes::of(b);
    let naked_single = classes.naked_single;
    let listed = classes.candidate_cells(classes.several, biv);
    let dirty = changed.cells();
    // The cells whose naked-single filter may have changed: peers of a changed cell that is
    // now placed or a naked single.
    let mut filtered: Cells = 0;
    for c in cells(dirty & (naked_single | !b.empty)) {
        filtered |= PEERS[c];
    }
    let touched = dirty | filtered;
    for c0 in cells(listed) {
        let mut pairs = listed & !((2u128 << c0) - 1);
        if touched & (1 << c0) == 0 {
            // Only the cells that changed, or share a changed peer with c0.
            let mut near = touched;
            for y in cells(dirty & PEERS[c0]) {
                near |= PEERS[y];
            }
            pairs &= near;
            if pairs == 0 {
                continue;
            }
        }
        // The later cells sharing at least two bivalue peers (excluders) with c0.
        for c1 in cells(pairs & seeing_two(biv & PEERS[c0])) {
            let excl = PEERS[c0] & PEERS[c1] & biv;
            let (m0, m1) = (b.cand[c0], b.cand[c1]);
            let (ok0, ok1) = pair_kept(b, c0, c1, excl);
            if ok0 != m0 || ok1 != m1 {
                let mut s = Step::new(Technique::AlignedPairExclusion);
                for d in digits(m0 & !ok0) {
                    s.eliminations.push((c0 as u8, d));
                }
                for d in digits(m1 & !ok1) {
                    s.eliminations.push((c1 as u8, d));
                }
                s.set_cells((1u128 << c0) | (1u128 << c1) | excl);
                return Some(s);
            }
        }
    }
    None
}

/// The digits of cells `c0` and `c1` that some allowed combination uses, against the bivalue
/// excluders `excl`: a combination may not empty an excluder or repeat a digit in a shared
/// house.
fn pair_kept(b: &Board, c0: usize, c1: usize, excl: Cells) -> (u16, u16) {
    let see = PEERS[c0] & (1u128 << c1) != 0;
    let (mut ok0, mut ok1) = (0u16, 0u16);
    for d0 in digits(b.cand[c0]) {
        // The second digits that would empty a bivalue excluder holding d0, or repeat d0 in a
        // shared house, are not allowed.
        let mut bad = if see { bit(d0) } else { 0 };
        for e in cells(excl) {
            if b.cand[e] & bit(d0) != 0 {
                bad |= b.cand[e] & !bit(d0);
            }
        }
        let second = b.cand[c1] & !bad;
        if second != 0 {
            ok0 |= bit(d0);
            ok1 |= second;
        }
    }
    (ok0, ok1)
}

/// Aligned triple exclusion: SE pairs two candidate cells, adds a third from the cells their
/// excluders (peers with two or three candidates) could see, and needs two common excluders.
///
/// A trio's hint depends on the candidates of its cells and of their common small peers, and
/// on its cells being candidate cells (which depends on their peers' classes: naked single,
/// two or three candidates, more). Only trios where one of those changed are looked at: a cell
/// that lost a candidate, a common peer that did, or a cell that became a candidate cell.
pub fn aligned_triple(b: &Board, changed: &Changed) -> Option<Step> {
    let now = Classes::of(b);
    let small = now.small;
    let cand_cells = now.candidate_cells(now.several, small);
    let dirty = changed.cells();
    // A cell that was no candidate cell on the earlier state (a peer became small, or a
    // peer's naked single was placed) starts new trios; its candidates may be unchanged.
    let before = now.before(b, changed);
    let mut class_changed: Cells = 0;
    for c in cells(now.differ(&before)) {
        class_changed |= PEERS[c];
    }
    let near_change = cand_cells & class_changed;
    let entered = near_change & !before.candidate_cells(near_change, before.small);
    let touched = dirty | entered;
    let small_cand = small & cand_cells;
    for c0 in cells(cand_cells) {
        let peers0 = PEERS[c0];
        // The later cells sharing at least two small peers (excluders) with c0.
        let twice = seeing_two(small & peers0);
        let third0 = peers0 & small_cand;
        let before0 = earlier(c0, small);
        let touched0 = holds(touched, c0);
        for c1 in cells(twice & cand_cells & !((2u128 << c0) - 1)) {
            let peers1 = PEERS[c1];
            let pair_excl = peers0 & peers1 & small;
            let mut twin = (third0 | peers1 & small_cand) & !(1u128 << c0 | 1u128 << c1);
            // The third cells of a trio reached before in another order.
            let before1 = earlier(c1, small);
            twin &= !if holds(peers0, c1) {
                before0 | before1
            } else {
                before0 & peers0 | before1 & peers1
            };
            if !touched0 && !holds(touched, c1) {
                // Only a third cell that changed, or sees a change among the pair's common peers.
                let mut near = touched;
                for y in cells(dirty & peers0 & peers1) {
                    near |= PEERS[y];
                }
                twin &= near;
            }
            if twin == 0 {
                continue;
            }
            // Only a third cell that sees two of the pair's excluders.
            for t in cells(twin & seeing_two(pair_excl)) {
                let trio = [c0, c1, t];
                let excl = pair_excl & PEERS[t];
                if let Some(s) = exclude(b, &trio, excl) {
                    return Some(s);
                }
            }
        }
    }
    None
}

/// The cells that see at least two cells of `excluders`.
fn seeing_two(excluders: Cells) -> Cells {
    let (mut once, mut twice): (Cells, Cells) = (0, 0);
    for e in cells(excluders) {
        twice |= once & PEERS[e];
        once |= PEERS[e];
    }
    twice
}

/// The cells before `x` if `x` is small (none if not): the third cells `t` for which
/// `aligned_triple` reached the trio {c0, c1, t} earlier with `x` (c0 or c1) as its third
/// cell, when `x` also sees one of the other two.
///
/// The loops reach a trio (x, y, z) with x < y when all three are candidate cells with two
/// common excluders and a change near them (the same in every order), and z is small and sees
/// x or y. A trio a < b < c comes as (a, b, c), then (a, c, b), then (b, c, a), and `exclude`
/// gives the same answer in every order, so a trio reached earlier found nothing. (c0, c1, t)
/// came earlier as (c0, t, c1) or (t, c0, c1) when t < c1 and c1 is small and sees c0 or t,
/// or as (t, c1, c0) when t < c0 and c0 is small and sees t or c1.
fn earlier(x: usize, small: Cells) -> Cells {
    if holds(small, x) {
        (1u128 << x) - 1
    } else {
        0
    }
}

/// The cells of a board sorted by their number of candidates, as the exclusions use them.
#[derive(Clone, Copy)]
struct Classes {
    /// Cells with two or three candidates (the excluders), or none (never on a rating path).
    small: Cells,
    /// Cells with one candidate, not yet placed.
    naked_single: Cells,
    /// Cells with two or more candidates.
    several: Cells,
}

impl Classes {
    /// The classes of the board's open cells.
    fn of(b: &Board) -> Classes {
        let mut k = Classes {
            small: 0,
            naked_single: 0,
            several: 0,
        };
        for c in cells(b.empty) {
            k.set(c, b.cand[c]);
        }
        k
    }

    /// The classes on the earlier state `changed` is measured from: only the cells that lost
    /// a candidate differ (a cell placed since was open then).
    fn before(&self, b: &Board, changed: &Changed) -> Classes {
        let mut k = *self;
        for c in cells(changed.cells()) {
            let cell = !(1u128 << c);
            k.small &= cell;
            k.naked_single &= cell;
            k.several &= cell;
            k.set(c, b.cand[c] | changed.removed_at(c));
        }
        k
    }

    /// Files cell `c`, with candidates `m`, in its class.
    fn set(&mut self, c: usize, m: u16) {
        // Cleared of its lowest digits, one at a time (no count: see `more_than`).
        let m1 = m & m.wrapping_sub(1);
        let m2 = m1 & m1.wrapping_sub(1);
        if m == 0 {
            self.small |= 1 << c;
        } else if m1 == 0 {
            self.naked_single |= 1 << c;
        } else {
            self.several |= 1 << c;
            if m2 & m2.wrapping_sub(1) == 0 {
                self.small |= 1 << c;
            }
        }
    }

    /// The cells whose class differs between `self` and `other`.
    fn differ(&self, other: &Classes) -> Cells {
        (self.small ^ other.small)
            | (self.naked_single ^ other.naked_single)
            | (self.several ^ other.several)
    }

    /// The cells of `among` that are candidate cells: two or more candidates, a peer among
    /// `excluders` and no naked single among their peers.
    fn candidate_cells(&self, among: Cells, excluders: Cells) -> Cells {
        let mut out: Cells = 0;
        for c in cells(among & self.several) {
            if PEERS[c] & self.naked_single == 0 && PEERS[c] & excluders != 0 {
                out |= 1 << c;
            }
        }
        out
    }
}

/// Removes the digits of `trio` that take part in no allowed combination.
fn exclude(b: &Board, trio: &[usize; 3], excl: Cells) -> Option<Step> {
    let ms = [b.cand[trio[0]], b.cand[trio[1]], b.cand[trio[2]]];
    let see01 = holds(PEERS[trio[0]], trio[1]);
    let see02 = holds(PEERS[trio[0]], trio[2]);
    let see12 = holds(PEERS[trio[1]], trio[2]);
    // Only an excluder whose candidates all belong to the trio can be emptied by a combination.
    let all = ms[0] | ms[1] | ms[2];
    // The excluders are common peers of the trio's cells: at most 20.
    let mut exb = [0u16; 20];
    let mut n = 0;
    for e in cells(excl) {
        if b.cand[e] & !all == 0 {
            exb[n] = b.cand[e];
            n += 1;
        }
    }
    let ex = &exb[..n];
    // For each digit d2 of the third cell, the digits (d0, d1) that may go with it: an
    // excluder holding d2 and one digit more forbids that digit in the first two cells, one
    // holding two digits besides d2 forbids them as (d0, d1) in either order, and one holding
    // d2 alone forbids d2.
    let mut ok = [0u16; 3];
    let mut pairs = [0u16; 20];
    for d2 in digits(ms[2]) {
        let b2 = bit(d2);
        let (mut gone, mut dead) = (0u16, false);
        let (mut np, mut paired) = (0, 0u16);
        for &m in ex {
            let rest = m & !b2;
            let rest1 = rest & rest.wrapping_sub(1);
            dead |= rest == 0;
            if rest1 == 0 {
                gone |= rest;
            } else if rest1 & rest1.wrapping_sub(1) == 0 {
                pairs[np] = rest;
                np += 1;
                paired |= rest;
            }
        }
        if dead {
            continue;
        }
        let a0 = ms[0] & !gone & !if see02 { b2 } else { 0 };
        let a1 = ms[1] & !gone & !if see12 { b2 } else { 0 };
        if a0 == 0 || a1 == 0 {
            continue;
        }
        let k0 = kept(a0, a1, paired, &pairs[..np], see01);
        if k0 != 0 {
            ok[0] |= k0;
            ok[1] |= kept(a1, a0, paired, &pairs[..np], see01);
            ok[2] |= b2;
        }
    }
    if ok == ms {
        return None;
    }
    let mut s = Step::new(Technique::AlignedTripleExclusion);
    for k in 0..3 {
        for d in digits(ms[k] & !ok[k]) {
            s.eliminations.push((trio[k] as u8, d));
        }
    }
    s.set_cells((1u128 << trio[0]) | (1u128 << trio[1]) | (1u128 << trio[2]) | excl);
    s.eliminations.sort_unstable();
    Some(s)
}

/// The digits of `a` that some digit of `other` may go with: not as one of the forbidden
/// `pairs` (two digits each, all of them in `paired`), nor the same digit when the two cells
/// share a house (`same`).
fn kept(a: u16, other: u16, paired: u16, pairs: &[u16], same: bool) -> u16 {
    // A digit of `other` in no pair goes with every digit of `a`, but itself when the two
    // cells share a house: two of them, or one beside other digits, keep all of `a`; one
    // alone keeps all of `a` but itself.
    let free = other & !paired;
    if free != 0 {
        if !same || free & (free - 1) != 0 || other != free {
            return a;
        }
        return a & !free;
    }
    let mut k = a;
    for d in digits(a) {
        let x = bit(d);
        let mut forbidden = if same { x } else { 0 };
        for &p in pairs {
            if p & x != 0 {
                forbidden |= p & !x;
            }
        }
        if other & !forbidden == 0 {
            k &= !x;
        }
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::bit;

    /// A placed cell's naked single filters its peers out of both exclusions: on the states of
    /// the golden paths where an exclusion finds a hint, undoing one placement (the cell back
    /// as a naked single) often hides it. Looking only at what that placement changed must
    /// find the hint again, although no cell of the pattern lost a candidate.
    #[test]
    fn a_placed_naked_single_brings_its_peers_back() {
        use crate::rate::tests::golden_paths;
        type Exclusion = fn(&Board, &Changed) -> Option<Step>;
        let rules: [Exclusion; 2] = [aligned_pair, aligned_triple];
        let mut hidden = [0; 2];
        for (p, states) in golden_paths() {
            for (now, _) in &states {
                for (k, rule) in rules.iter().enumerate() {
                    let Some(want) = rule(now, &Changed::ALL) else {
                        continue;
                    };
                    for z in cells(!now.empty & super::super::board::ALL) {
                        let (mut value, mut cand) = (now.value, now.cand);
                        cand[z] = bit(value[z]);
                        value[z] = 0;
                        let before = Board::from_parts(value, cand);
                        if rule(&before, &Changed::ALL).is_some() {
                            continue;
                        }
                        hidden[k] += 1;
                        let changed = Changed::since(&before.pos, now);
                        assert_eq!(rule(now, &changed).as_ref(), Some(&want), "{p}, r{z}");
                    }
                }
            }
        }
        assert!(hidden.iter().all(|&n| n > 0), "{hidden:?}");
    }

    /// Aligned triple exclusion over every order of a trio the loops can reach, none skipped.
    fn aligned_triple_every_order(b: &Board) -> Option<Step> {
        let k = Classes::of(b);
        let cand_cells = k.candidate_cells(k.several, k.small);
        for c0 in cells(cand_cells) {
            for c1 in cells(cand_cells & !((2u128 << c0) - 1)) {
                let pair = 1u128 << c0 | 1u128 << c1;
                let twin = (PEERS[c0] | PEERS[c1]) & k.small & cand_cells & !pair;
                for t in cells(twin) {
                    let excl = PEERS[c0] & PEERS[c1] & PEERS[t] & k.small;
                    if excl.count_ones() < 2 {
                        continue;
                    }
                    if let Some(s) = exclude(b, &[c0, c1, t], excl) {
                        return Some(s);
                    }
                }
            }
        }
        None
    }

    /// Skipping the orders of a trio reached before finds the same first hint as trying every
    /// order, on every state of the golden paths: looking at every trio, and looking only at
    /// what changed since one of the three states before, where every order found nothing.
    #[test]
    fn triple_exclusion_skips_only_trios_tried_before() {
        use crate::rate::tests::golden_paths;
        let (mut states, mut found, mut since) = (0, 0, 0);
        for (p, path) in golden_paths() {
            let wants: Vec<Option<Step>> = path
                .iter()
                .map(|(now, _)| aligned_triple_every_order(now))
                .collect();
            for (i, (now, _)) in path.iter().enumerate() {
                let want = &wants[i];
                assert_eq!(&aligned_triple(now, &Changed::ALL), want, "{p}");
                // Each of the three states before where every order found nothing.
                for j in (i.saturating_sub(3)..i)
                    .rev()
                    .filter(|&j| wants[j].is_none())
                {
                    let changed = Changed::since(&path[j].0.pos, now);
                    assert_eq!(&aligned_triple(now, &changed), want, "{p}, since");
                    since += 1;
                }
                states += 1;
                found += usize::from(want.is_some());
            }
        }
        assert!(
            states > 1000 && found > 10 && since > 2000,
            "{states} states, {found} found, {since} since"
        );
    }

    /// The digits a trio keeps, by trying every combination against every excluder.
    fn kept_by_enumeration(b: &Board, trio: &[usize; 3], excl: Cells) -> [u16; 3] {
        let ms = trio.map(|c| b.cand[c]);
        let sees = |i: usize, j: usize| PEERS[trio[i]] & (1u128 << trio[j]) != 0;
        let mut ok = [0u16; 3];
        for d0 in digits(ms[0]) {
            for d1 in digits(ms[1]) {
                for d2 in digits(ms[2]) {
                    let repeat = (d0 == d1 && sees(0, 1))
                        || (d0 == d2 && sees(0, 2))
                        || (d1 == d2 && sees(1, 2));
                    let set = bit(d0) | bit(d1) | bit(d2);
                    if repeat || cells(excl).any(|e| b.cand[e] & !set == 0) {
                        continue;
                    }
                    ok = [ok[0] | bit(d0), ok[1] | bit(d1), ok[2] | bit(d2)];
                }
            }
        }
        ok
    }

    #[test]
    fn pair_exclusion_keeps_what_some_combination_allows() {
        use crate::rate::tests::golden_state;
        let mut pairs = 0;
        for t in [
            Technique::AlignedPairExclusion,
            Technique::Nishio,
            Technique::MultipleForcingChain,
        ] {
            let (b, _, _) = golden_state(t);
            let biv = b.bivalue();
            let open: Vec<usize> = cells(b.empty)
                .filter(|&c| b.cand[c].count_ones() >= 2)
                .collect();
            for (i, &c0) in open.iter().enumerate() {
                for &c1 in &open[i + 1..] {
                    let excl = PEERS[c0] & PEERS[c1] & biv;
                    let see = PEERS[c0] & (1u128 << c1) != 0;
                    let mut want = (0u16, 0u16);
                    for d0 in digits(b.cand[c0]) {
                        for d1 in digits(b.cand[c1]) {
                            let pair = bit(d0) | bit(d1);
                            if (d0 == d1 && see) || cells(excl).any(|e| b.cand[e] & !pair == 0) {
                                continue;
                            }
                            want = (want.0 | bit(d0), want.1 | bit(d1));
                        }
                    }
                    assert_eq!(pair_kept(&b, c0, c1, excl), want, "{t:?} {c0} {c1}");
                    pairs += (want != (b.cand[c0], b.cand[c1])) as usize;
                }
            }
        }
        assert!(pairs > 0, "no pair loses a digit");
    }

    #[test]
    fn triple_exclusion_keeps_what_some_combination_allows() {
        use crate::rate::tests::golden_state;
        let (mut trios, mut removing) = (0, 0);
        for t in [
            Technique::AlignedTripleExclusion,
            Technique::Nishio,
            Technique::MultipleForcingChain,
            Technique::DynamicForcingChain,
        ] {
            let (b, _, _) = golden_state(t);
            let small: Cells = cells(b.empty)
                .filter(|&c| (2..=3).contains(&b.cand[c].count_ones()))
                .fold(0, |m, c| m | 1 << c);
            let open: Vec<usize> = cells(b.empty)
                .filter(|&c| b.cand[c].count_ones() >= 2)
                .collect();
            for (i, &c0) in open.iter().enumerate() {
                for &c1 in &open[i + 1..] {
                    for &c2 in &open {
                        let excl = PEERS[c0] & PEERS[c1] & PEERS[c2] & small;
                        if c2 == c0 || c2 == c1 || excl.count_ones() < 2 {
                            continue;
                        }
                        let trio = [c0, c1, c2];
                        let kept = kept_by_enumeration(&b, &trio, excl);
                        let want: Vec<(u8, u8)> = (0..3)
                            .flat_map(|k| {
                                digits(b.cand[trio[k]] & !kept[k]).map(move |d| (trio[k] as u8, d))
                            })
                            .collect();
                        let got = exclude(&b, &trio, excl).map(|s| s.eliminations);
                        let mut want_sorted = want.clone();
                        want_sorted.sort_unstable();
                        assert_eq!(
                            got,
                            (!want.is_empty()).then_some(want_sorted),
                            "{t:?} {trio:?}"
                        );
                        trios += 1;
                        removing += !want.is_empty() as usize;
                    }
                }
            }
        }
        assert!(
            trios > 1000 && removing > 0,
            "{trios} trios, {removing} removing"
        );
    }

    #[test]
    fn pair_exclusion_removes_a_digit_that_would_empty_a_bivalue_cell() {
        let mut cand = [0x1ffu16; 81];
        // r1c1 = {1,2} and r1c2 = {1,3,4}; bivalue cells r2c3 = {1,3} and r3c3 = {2,3} see both.
        // Then r1c2 = 3 needs r1c1 = 1 (kills {1,3}) or r1c1 = 2 (kills {2,3}): 3 is impossible.
        cand[0] = bit(1) | bit(2);
        cand[1] = bit(1) | bit(3) | bit(4);
        cand[11] = bit(1) | bit(3);
        cand[20] = bit(2) | bit(3);
        let b = Board::from_parts([0; 81], cand);
        let s = aligned_pair(&b, &Changed::ALL).unwrap();
        assert_eq!(s.technique, Technique::AlignedPairExclusion);
        assert!(s.eliminations.contains(&(1, 3)));
    }

    #[test]
    fn triple_exclusion_uses_cells_with_three_candidates() {
        let mut cand = [0x1ffu16; 81];
        // r1c1 = {1,2}, r1c2 = {1,2,3}, r1c3 = {3,4}; two excluders in box 1, which see all
        // three cells: r2c1 = {2,3,4} and r3c2 = {1,3,4}.
        cand[0] = bit(1) | bit(2);
        cand[1] = bit(1) | bit(2) | bit(3);
        cand[2] = bit(3) | bit(4);
        cand[9] = bit(2) | bit(3) | bit(4);
        cand[19] = bit(1) | bit(3) | bit(4);
        let b = Board::from_parts([0; 81], cand);
        // All three cells are in row 1, so their digits differ. r1c2 = 3 forces r1c3 = 4, and
        // then r1c1 = 1 empties r3c2 while r1c1 = 2 empties r2c1: 3 goes from r1c2.
        let trio = [0usize, 1, 2];
        let excl = (1u128 << 9) | (1u128 << 19);
        assert_eq!(exclude(&b, &trio, excl).unwrap().eliminations, vec![(1, 3)]);
        // With r2c1 = {2,4} and r3c2 = {1,4}: (1,2,4) and (2,3,4) empty r2c1, (2,1,4) and
        // (1,3,4) empty r3c2; only (1,2,3) and (2,1,3) remain, so r1c2 also loses 3 and r1c3
        // loses 4.
        let mut cand2 = cand;
        cand2[19] = bit(1) | bit(4);
        cand2[9] = bit(2) | bit(4);
        let b = Board::from_parts([0; 81], cand2);
        let s = exclude(&b, &trio, excl).unwrap();
        assert_eq!(s.eliminations, vec![(1, 3), (2, 4)]);
    }

    /// `exclude` against every combination of three digits, on random candidate sets of three
    /// cells (seeing each other or not) and their common excluders: a digit goes exactly when
    /// every combination using it repeats a digit in a shared house or leaves some excluder
    /// with no candidate.
    #[test]
    fn triple_exclusion_agrees_with_every_combination() {
        let mut x = 0x2545_F491_4F6C_DD1D_u64;
        let mut rand = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        // Three cells of box 1 (all seeing each other); r1c1, r1c5 and r5c1 (r1c5 and r5c1
        // do not see each other); or r1c1, r1c2 and r2c4 (only the first two see each other).
        // The excluders are common peers.
        let layouts: [([usize; 3], Cells); 3] = [
            ([0, 1, 2], 1 << 9 | 1 << 10 | 1 << 19 | 1 << 20),
            ([0, 4, 36], 0),
            ([0, 1, 12], 1 << 3 | 1 << 4 | 1 << 9 | 1 << 10),
        ];
        let mut removed = 0;
        for round in 0..6000 {
            let (trio, excl) = layouts[round % 3];
            let mut cand = [0x1ffu16; 81];
            for &c in &trio {
                // Two to four digits, mostly of 1-5.
                let (mut m, size) = (0u16, 2 + rand(3) as u32);
                while m.count_ones() < size {
                    let range = if rand(4) == 0 { 9 } else { 5 };
                    m |= bit(1 + rand(range) as u8);
                }
                cand[c] = m;
            }
            for e in cells(excl) {
                // Two or three digits, mostly the trio's.
                let (mut m, size) = (0u16, 2 + rand(2) as u32);
                while m.count_ones() < size {
                    let range = if rand(4) == 0 { 9 } else { 4 };
                    m |= bit(1 + rand(range) as u8);
                }
                cand[e] = m;
            }
            let b = Board::from_parts([0; 81], cand);
            let ms = trio.map(|c| b.cand[c]);
            let see = |i: usize, j: usize| PEERS[trio[i]] >> trio[j] & 1 == 1;
            let mut ok = [0u16; 3];
            for d0 in digits(ms[0]) {
                for d1 in digits(ms[1]) {
                    for d2 in digits(ms[2]) {
                        let ds = [d0, d1, d2];
                        let repeats =
                            (0..3).any(|i| (i + 1..3).any(|j| see(i, j) && ds[i] == ds[j]));
                        let union = bit(d0) | bit(d1) | bit(d2);
                        let empties = cells(excl).any(|e| b.cand[e] & !union == 0);
                        if !repeats && !empties {
                            for k in 0..3 {
                                ok[k] |= bit(ds[k]);
                            }
                        }
                    }
                }
            }
            let mut want: Vec<(u8, u8)> = Vec::new();
            for k in 0..3 {
                want.extend(digits(ms[k] & !ok[k]).map(|d| (trio[k] as u8, d)));
            }
            want.sort_unstable();
            let got = exclude(&b, &trio, excl)
                .map(|s| s.eliminations)
                .unwrap_or_default();
            assert_eq!(
                got,
                want,
                "{:?} {:?}",
                ms,
                cells(excl).map(|e| b.cand[e]).collect::<Vec<_>>()
            );
            removed += usize::from(!want.is_empty());
        }
        assert!(removed > 100, "{removed} rounds removed something");
    }
}
