//! SE's nested forcing chains (9.5 and up): the inner chaining rules that a nested level's
//! implication runs use on their working grid once the simple rules of dynamic forcing chains
//! (+) find nothing, the level order, and the deadline the nested searches check.
//!
//! Level 2 (9.5) adds SE's static chaining rule (X-, Y- and XY-cycles, forcing X-chains and
//! forcing chains with both link kinds) on the run's working grid; level 3 (10.0) adds, when
//! those find nothing,
//! static multiple forcing chains; level 4 (10.5) uses dynamic forcing chains instead of both;
//! level 5 (11.0) adds, when those find nothing, the nested forcing chains of level 2 (whose
//! own stalled runs use the level-2 rules).
//! Each inner hint that relies on candidates the run removed becomes "off" nodes whose parents
//! are those candidates, and the hint's own complexity is added (once per distinct nested
//! chain) to the complexity of every outer hint that goes through it.

use super::advanced::Advanced;
use super::board::{cells, digits, houses_of, Board, Cells, HOUSES};
use super::chains::{CycleWalks, FoundCycle};
use super::forcing::{inner_chains, nested_chains, off_consequences, on_consequences, Kind, KINDS};
use super::reach::{node, Reach};
use super::scale::length_increment;
use super::Step;

const NONE: u32 = u32::MAX;

/// The nesting levels tried, in SE's order, when dynamic forcing chains (+) find nothing.
pub const LEVELS: [u8; 4] = [2, 3, 4, 5];

use super::deadline::expired;

/// The easiest nested forcing chain on `b`, trying each level in turn; `None` when no level
/// finds one or the deadline passed.
pub fn nested_step(b: &Board) -> Option<Step> {
    nested_step_with(b, false)
}

/// [`nested_step`], with what proves the step (see `forcing::forcing_chains_explained`; the
/// inner hints a run used show as the "off" nodes they made). For explanations, where the
/// levels are searched again on the board the step was found on.
pub fn nested_step_explained(b: &Board) -> Option<Step> {
    nested_step_with(b, true)
}

fn nested_step_with(b: &Board, explain: bool) -> Option<Step> {
    for level in LEVELS {
        if expired() || super::deadline::above_max(95 + 5 * (u16::from(level) - 2)) {
            return None;
        }
        if let Some(s) = nested_chains(b, level, inner_eliminations, explain) {
            if expired() {
                return None;
            }
            return Some(s);
        }
    }
    None
}

/// One node of a static chain on the working grid.
#[derive(Clone, Copy)]
struct INode {
    cd: u16,
    on: bool,
    /// How an "on" node was forced: 3 for its cell, 0-2 for a house of [`KINDS`] of its
    /// parent's cell, `u8::MAX` for the start.
    via: u8,
    parent: u32,
}

/// SE's order of the static chaining hints: rating, complexity, kind (2: X, 3: Y, 4: XY),
/// then discovery: start cell and digit, cycles (0) before forcing chains from "on" (1) and
/// "off" (2), and a start's cycles in walk order.
type Key = (u16, u32, u8, u8, u8, u8, u32);

/// A static chaining hint found on the working grid: a cycle, or a forcing chain whose start
/// proves its own negation.
struct Found {
    key: Key,
    /// Range of the candidates it removes in [`Inner::elims`], in increasing order.
    estart: u32,
    eend: u32,
    /// Range of the rule parents in [`Inner::parents`].
    pstart: u32,
    pend: u32,
    /// The chain's identity; its complexity is `key.1`.
    hash: u64,
}

/// Buffers of the inner static chaining rule, kept per thread.
pub struct Inner {
    nodes: Vec<INode>,
    on_map: Vec<u32>,
    off_map: Vec<u32>,
    pend_on: Vec<u32>,
    pend_off: Vec<u32>,
    found: Vec<Found>,
    /// The candidates each found hint removes.
    elims: Vec<u16>,
    /// The hints emitted so far (ranges in `elims`).
    done: Vec<(u32, u32)>,
    parents: Vec<u16>,
    seen: Vec<u32>,
    stamp: u32,
    /// The cycle walks' buffers (taken out while they run).
    cycles: Option<CycleWalks>,
}

impl Default for Inner {
    fn default() -> Inner {
        Inner {
            nodes: Vec::with_capacity(1500),
            on_map: vec![NONE; 729],
            off_map: vec![NONE; 729],
            pend_on: Vec::new(),
            pend_off: Vec::new(),
            found: Vec::new(),
            elims: Vec::new(),
            done: Vec::new(),
            parents: Vec::new(),
            seen: vec![0; 729],
            stamp: 0,
            cycles: None,
        }
    }
}

impl Inner {
    fn reset(&mut self) {
        for n in &self.nodes {
            if n.on {
                self.on_map[n.cd as usize] = NONE;
            } else {
                self.off_map[n.cd as usize] = NONE;
            }
        }
        self.nodes.clear();
    }

    fn add(&mut self, cd: u16, on: bool, via: u8, parent: u32) -> u32 {
        self.nodes.push(INode {
            cd,
            on,
            via,
            parent,
        });
        self.nodes.len() as u32 - 1
    }

    /// SE's static forcing chain search from candidate `cd` assumed `on` (`y`: with cell
    /// links): the implication closure, layer by layer, until it proves the start's negation
    /// (the node returned; SE keeps the first chain it finds to it).
    fn closure(&mut self, grid: &Board, cd: u16, on: bool, y: bool) -> Option<u32> {
        self.reset();
        self.pend_on.clear();
        self.pend_off.clear();
        let s = self.add(cd, on, u8::MAX, NONE);
        if on {
            self.on_map[cd as usize] = s;
            self.pend_on.push(s);
        } else {
            self.off_map[cd as usize] = s;
            self.pend_off.push(s);
        }
        while !self.pend_on.is_empty() || !self.pend_off.is_empty() {
            // An "on" layer only adds "off" nodes and an "off" layer only "on" nodes.
            for i in 0..self.pend_on.len() {
                let p = self.pend_on[i];
                let mut offs = [0; 32];
                let n = on_consequences(grid, y, self.nodes[p as usize].cd, &mut offs);
                for &q in &offs[..n] {
                    if on && q == cd {
                        return Some(self.add(q, false, 0, p));
                    }
                    if self.off_map[q as usize] == NONE {
                        let ni = self.add(q, false, 0, p);
                        self.off_map[q as usize] = ni;
                        self.pend_off.push(ni);
                    }
                }
            }
            self.pend_on.clear();
            for i in 0..self.pend_off.len() {
                let p = self.pend_off[i];
                let mut qs = [(0, 0); 4];
                let n = off_consequences(grid, y, self.nodes[p as usize].cd, &mut qs);
                for &(q, via) in &qs[..n] {
                    if !on && q == cd {
                        return Some(self.add(q, true, via, p));
                    }
                    if self.on_map[q as usize] == NONE {
                        let ni = self.add(q, true, via, p);
                        self.on_map[q as usize] = ni;
                        self.pend_on.push(ni);
                    }
                }
            }
            self.pend_off.clear();
        }
        None
    }

    /// Records the chain ending at `t` (from [`Inner::closure`], started from candidate `cd`
    /// assumed `on`) as a hint on `grid`, whose run started from `real`; `base` is the rule's
    /// rating and `sort` SE's hint kind.
    fn record(
        &mut self,
        real: &Board,
        grid: &Board,
        t: u32,
        (cd, on): (u16, bool),
        (base, sort): (u16, u8),
    ) {
        let tn = self.nodes[t as usize];
        let c = tn.cd as usize / 9;
        let d = (tn.cd % 9) as u8 + 1;
        let estart = self.elims.len() as u32;
        let removed = if tn.on {
            grid.cand[c] & !super::board::bit(d)
        } else {
            super::board::bit(d)
        };
        for e in digits(removed) {
            self.elims.push((c * 9 + e as usize - 1) as u16);
        }
        self.new_stamp();
        let pstart = self.parents.len() as u32;
        let mut hash = HASH_START;
        let mut cx = 0u32;
        let mut i = t;
        while i != NONE {
            let n = self.nodes[i as usize];
            cx += 1;
            hash = hash_node(hash, n.cd, n.on);
            if n.on && n.via != u8::MAX {
                let (nc, nd) = (n.cd as usize / 9, (n.cd % 9) as u8 + 1);
                if n.via == 3 {
                    self.cell_parents(real, grid, nc);
                } else {
                    let pc = self.nodes[n.parent as usize].cd as usize / 9;
                    self.house_parents(real, grid, houses_of(pc)[KINDS[n.via as usize]], nd);
                }
            }
            i = n.parent;
        }
        let rating = base + length_increment(cx as usize);
        let (sc, sd) = (cd / 9, (cd % 9) as u8 + 1);
        let key = (rating, cx, sort, sc as u8, sd, 1 + !on as u8, 0);
        self.push_found(key, estart, pstart, hash);
    }

    /// Records a hint of sort key `key` whose eliminations and rule parents were pushed from
    /// `estart` and `pstart` on; `hash` names its chain, whose complexity the key holds.
    fn push_found(&mut self, key: Key, estart: u32, pstart: u32, hash: u64) {
        self.found.push(Found {
            key,
            estart,
            eend: self.elims.len() as u32,
            pstart,
            pend: self.parents.len() as u32,
            hash,
        });
    }

    /// Records a cycle found on `grid` (the run started from `real`) as a hint. Its rule
    /// parents are those of every link but the start's: SE reads the cycle both ways, so each
    /// link is the cause of a node turned "on" in one of them. A link inside a cell relies on
    /// the cell's removed candidates; one between two cells on the removed places of the digit
    /// in the first house (box, row, column) holding both, where the digit has two places for
    /// a link that turns a node "on".
    fn record_cycle(&mut self, real: &Board, grid: &Board, f: &FoundCycle<'_>) {
        let estart = self.elims.len() as u32;
        for c in 0..81 {
            for (d, &m) in f.elims.iter().enumerate() {
                if m >> c & 1 != 0 {
                    self.elims.push((c * 9 + d) as u16);
                }
            }
        }
        self.new_stamp();
        let pstart = self.parents.len() as u32;
        let mut hash = HASH_START;
        for (i, &(c, d, on)) in f.nodes.iter().enumerate() {
            hash = hash_node(hash, (c * 9 + d as usize - 1) as u16, on);
            let pc = f.nodes.get(i + 1).map_or(f.start.0, |p| p.0);
            if pc == c {
                self.cell_parents(real, grid, c);
                continue;
            }
            let pos = grid.pos[d as usize - 1];
            let both: Cells = 1 << c | 1 << pc;
            let h = KINDS.iter().map(|&k| houses_of(c)[k]).find(|&h| {
                HOUSES[h] & both == both && (!on || (HOUSES[h] & pos).count_ones() == 2)
            });
            if let Some(h) = h {
                self.house_parents(real, grid, h, d);
            }
        }
        let cx = f.nodes.len() as u32;
        let (c, d) = f.start;
        let rating = f.base + length_increment(cx as usize);
        let key = (rating, cx, f.sort, c as u8, d, 0, f.rank);
        self.push_found(key, estart, pstart, hash);
    }

    /// Starts a new set of rule parents (see [`Inner::push_parent`]).
    fn new_stamp(&mut self) {
        if self.stamp == u32::MAX {
            self.seen.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    /// The candidates of cell `c` that the run removed, as rule parents.
    fn cell_parents(&mut self, real: &Board, grid: &Board, c: usize) {
        for e in digits(real.cand[c] & !grid.cand[c]) {
            self.push_parent((c * 9 + e as usize - 1) as u16);
        }
    }

    /// The places of digit `d` in house `h` that the run removed, as rule parents.
    fn house_parents(&mut self, real: &Board, grid: &Board, h: usize, d: u8) {
        let gone = real.pos[d as usize - 1] & !grid.pos[d as usize - 1] & HOUSES[h];
        for gc in cells(gone) {
            self.push_parent((gc * 9 + d as usize - 1) as u16);
        }
    }

    fn push_parent(&mut self, cd: u16) {
        if self.seen[cd as usize] != self.stamp {
            self.seen[cd as usize] = self.stamp;
            self.parents.push(cd);
        }
    }
}

/// The identity of a nested chain: a hash (FNV-1a) of its nodes, end to start.
const HASH_START: u64 = 0xcbf2_9ce4_8422_2325;

fn hash_node(hash: u64, cd: u16, on: bool) -> u64 {
    (hash ^ (cd as u64 * 2 + on as u64)).wrapping_mul(0x100_0000_01b3)
}

thread_local! {
    static INNER: std::cell::RefCell<Inner> = std::cell::RefCell::new(Inner::default());
}

/// Fills `acc` with the eliminations of SE's static chaining rule (cycles and forcing chains)
/// on `grid` (a run's working grid, the run having started from `real`), each with its rule
/// parents and its nested chain; hints without parents, or equal in eliminations to an easier
/// hint, add nothing.
pub fn static_chaining(real: &Board, grid: &Board, acc: &mut Advanced) {
    // A start's closure reaches its negation only if the graph of both link kinds does (the
    // X-chains follow some of its links): one pass over that graph skips the starts with no
    // chain, whose closures would each explore all they reach.
    let graph = Reach::new(grid);
    INNER.with_borrow_mut(|inner| {
        inner.found.clear();
        inner.parents.clear();
        inner.elims.clear();
        let mut cycles = inner.cycles.take().unwrap_or_else(CycleWalks::new);
        cycles.each(grid, &graph, |f| inner.record_cycle(real, grid, f));
        inner.cycles = Some(cycles);
        for (y, base, sort) in [(false, 66, 2), (true, 70, 4)] {
            for c in cells(grid.empty) {
                if grid.cand[c].count_ones() < 2 {
                    continue;
                }
                for d in digits(grid.cand[c]) {
                    let cd = (c * 9 + d as usize - 1) as u16;
                    for on in [true, false] {
                        if !graph.reaches(node(c, d, on), node(c, d, !on)) {
                            continue;
                        }
                        if let Some(t) = inner.closure(grid, cd, on, y) {
                            inner.record(real, grid, t, (cd, on), (base, sort));
                        }
                    }
                }
            }
        }
        inner.reset();
        emit(inner, acc);
    });
}

/// Adds the recorded hints to `acc` in SE's order (rating, complexity, kind, discovery),
/// skipping hints whose eliminations an earlier hint already has (SE's hints are equal when
/// they remove the same candidates).
fn emit(inner: &mut Inner, acc: &mut Advanced) {
    inner.found.sort_unstable_by_key(|f| f.key);
    let Inner {
        found, elims, done, ..
    } = inner;
    done.clear();
    let range = |&(s, e): &(u32, u32)| &elims[s as usize..e as usize];
    for f in found.iter() {
        let removes = range(&(f.estart, f.eend));
        if done.iter().any(|r| range(r) == removes) {
            continue;
        }
        done.push((f.estart, f.eend));
        if f.pend == f.pstart {
            continue;
        }
        let ci = acc.chains.len() as u32;
        acc.chains.push((f.hash, f.key.1));
        let ps = acc.parents.len() as u32;
        acc.parents
            .extend_from_slice(&inner.parents[f.pstart as usize..f.pend as usize]);
        let pe = acc.parents.len() as u32;
        for &e in removes {
            acc.elims.push((e, ps, pe));
            acc.nest.push(ci);
        }
    }
}

/// Fills `acc` (empty: the simple rules found nothing) with the eliminations of the inner
/// chaining rules of nesting `level` on a run's working grid `grid` (the run started from
/// `real`), the first rule that yields anything being the only one used.
pub fn inner_eliminations(real: &Board, grid: &Board, level: u8, acc: &mut Advanced) {
    debug_assert!(acc.elims.is_empty());
    if level < 4 {
        static_chaining(real, grid, acc);
        if level == 3 && acc.elims.is_empty() && !expired() {
            inner_chains(real, grid, Kind::Multiple, None, acc);
        }
    } else {
        inner_chains(real, grid, Kind::Dynamic, None, acc);
        if level >= 5 && acc.elims.is_empty() && !expired() {
            inner_chains(
                real,
                grid,
                Kind::Nested(level - 3),
                Some(inner_eliminations),
                acc,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rate::scale::Technique;
    use crate::rate::tests::check_path;
    use crate::rate::{explain, rate, GaveUp, Limits, Status};
    use crate::Grid;
    use std::time::Duration;

    /// Puzzles of the HardestDatabase list (`data/norvig_sudokus_hard_375.txt`, MIT) that
    /// dynamic forcing chains (+) cannot finish, with serate 1.2.1.3's ER/EP/ED.
    const SERATE: [(&str, &str); 5] = [
        (
            "........8..3...4...9..2..6.....79.......612...6.5.2.7...8...5...1.....2.4.5.....3",
            "10.3/1.2/1.2",
        ),
        (
            "........6..2....4..1...798....79.....8..5......3..8.1...6....2..9...51..4.......8",
            "10.5/1.2/1.2",
        ),
        (
            "........3..1..56...9..4..7......9.5.7.......8.5.4.2....8..2..9...35..1..6........",
            "10.8/1.2/1.2",
        ),
        (
            "3.......5.7...8.6...2...9...1...6......82.......1.7.4...9...2...8.6...1.5.......3",
            "11.3/11.3/11.2",
        ),
        (
            "..34..7.......9..6....2..1...8..4..13.....8..57.8..........8.9.8...6...2..53..1..",
            "10.5/10.5/10.5",
        ),
    ];

    /// HardestDatabase puzzles (the first also in `data/tdoku_test_puzzles.txt`) where the
    /// inner static chaining of a level-2 nested chain meets a cycle's elimination before a
    /// shorter forcing chain's (a cycle rates 6.5, a forcing X-chain 6.6), so the nested chain
    /// that takes it counts the cycle's nodes; with SE 1.2.1's (729c00e3) ER/EP/ED.
    const THROUGH_CYCLES: [(&str, &str); 2] = [
        (
            "........2..8.1.9..5....3.4....1.93...6..3..8...37......4......53.1.7.8..2........",
            "10.4/1.2/1.2",
        ),
        (
            "........9..6.1.7.24......3......12...6..2..5...28.7....3......4..8.7.6..9..1.....",
            "10.4/1.2/1.2",
        ),
    ];

    /// Rates `p` as serate does (`want`), with every step keeping the solution and some step a
    /// nested forcing chain.
    fn check(p: &str, want: &str) {
        let p: Grid = p.parse().unwrap();
        let r = check_path(&p);
        assert_eq!(r.status, Status::Rated, "{p}");
        assert_eq!(r.se_string(), want, "{p}");
        let (_, steps) = explain(&p, &Limits::default());
        assert!(
            steps
                .iter()
                .any(|s| s.technique == Technique::NestedForcingChain),
            "{p}"
        );
    }

    #[test]
    fn nested_forcing_chains_rate_as_serate() {
        let (p, want) = SERATE[0];
        check(p, want);
    }

    #[test]
    fn a_cycle_inside_a_nested_chain_counts_as_serate_counts_it() {
        let (p, want) = THROUGH_CYCLES[0];
        check(p, want);
    }

    /// The other puzzles of [`SERATE`] and [`THROUGH_CYCLES`] (a few seconds each in a release
    /// build).
    #[test]
    #[ignore]
    fn nested_forcing_chains_rate_as_serate_more() {
        for (p, want) in SERATE[1..].iter().chain(&THROUGH_CYCLES[1..]) {
            check(p, want);
        }
    }

    /// The state where the path of [`SERATE`]'s first puzzle first needs a nested chain, and
    /// the puzzle's solution.
    fn first_nested_state() -> (crate::rate::board::Board, Grid) {
        let p: Grid = SERATE[0].0.parse().unwrap();
        let sol = crate::solve(&p, 2).solution.unwrap();
        let (_, steps) = explain(&p, &Limits::default());
        let mut b = crate::rate::board::Board::new(&p);
        let first = steps
            .iter()
            .position(|s| s.technique == Technique::NestedForcingChain)
            .unwrap();
        for s in &steps[..first] {
            s.apply(&mut b);
        }
        (b, sol)
    }

    /// Asserts that `s` is a sound level-5 step on a puzzle with solution `sol`.
    fn assert_sound_fifth_level(s: &crate::rate::Step, sol: &Grid) {
        assert_eq!(s.technique, Technique::NestedForcingChain);
        assert!(s.rating >= 110, "{}", s.rating);
        assert!(!s.eliminations.is_empty() || !s.placements.is_empty());
        for &(c, d) in &s.eliminations {
            assert_ne!(sol.get(c as usize), d, "{s} removes the solution digit");
        }
        for &(c, d) in &s.placements {
            assert_eq!(sol.get(c as usize), d, "{s} places a wrong digit");
        }
    }

    /// SE's fifth level, run by itself on that state: its inner rules include level 4's, so it
    /// finds a hint, rated from 11.0, that keeps the solution (the level's inner nested search
    /// runs wherever an inner dynamic search finds nothing).
    #[test]
    #[ignore]
    fn the_fifth_level_finds_a_sound_hint() {
        let (b, sol) = first_nested_state();
        let s =
            super::nested_chains(&b, 5, super::inner_eliminations, false).expect("a level-5 hint");
        assert_sound_fifth_level(&s, &sol);
    }

    /// The fifth level, nested searches inside nested searches, runs without tripping over its
    /// own buffers and stops at its deadline (in its first second on that state it ran the
    /// inner nested search seven times, measured).
    #[test]
    fn the_fifth_level_runs_and_stops_at_its_deadline() {
        let (b, sol) = first_nested_state();
        let start = std::time::Instant::now();
        let previous = crate::rate::deadline::set_cutoff(crate::rate::deadline::Cutoff {
            deadline: Some(start + Duration::from_millis(1000)),
            ..Default::default()
        });
        let found = super::nested_chains(&b, 5, super::inner_eliminations, false);
        crate::rate::deadline::set_cutoff(previous);
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        if let Some(s) = found {
            assert_sound_fifth_level(&s, &sol);
        }
    }

    /// A puzzle whose nested steps take long stops soon after the deadline, as having given
    /// up on it.
    #[test]
    fn nested_search_stops_at_the_deadline() {
        let p: Grid = SERATE[1].0.parse().unwrap();
        let start = std::time::Instant::now();
        let limits = Limits {
            deadline: Some(start + Duration::from_millis(100)),
            ..Limits::default()
        };
        let r = rate(&p, &limits);
        assert_eq!(r.status, Status::GaveUp(GaveUp::Deadline));
        assert!(
            start.elapsed() < Duration::from_secs(3),
            "{:?}",
            start.elapsed()
        );
        let left = crate::rate::deadline::set_cutoff(Default::default());
        assert!(left.deadline.is_none() && left.stop.is_none(), "restored");
    }

    /// A nested step explained on its board is the step the rating path takes there, with
    /// its proof: per end of the hint, the implications from its assumption, every node a
    /// candidate of the board (`forcing`'s proof check), at most as many nodes as the
    /// complexity in its rating counts (which adds the inner chains' own).
    #[test]
    fn an_explained_nested_step_is_the_step_with_its_proof() {
        use super::{length_increment, nested_step, nested_step_explained};
        use crate::rate::forcing::tests::assert_proof;
        let (b, _) = first_nested_state();
        let plain = nested_step(&b).expect("a nested step");
        let s = nested_step_explained(&b).expect("a nested step");
        assert!(plain.chains.is_empty());
        assert!(s.same_hint(&plain), "{s} / {plain}");
        let n = assert_proof(&b, &s);
        assert!(s.rating >= 95 + length_increment(n), "{s}");
    }
}
