//! Multiple forcing chains (8.0) by layered closures: the static implication runs of
//! `forcing` as candidate sets, one set per distance, with no nodes or parents.
//!
//! A static run has no link parents: each node has one parent, so its ancestor count is its
//! distance from the start plus one. And a run follows its nodes in order of distance (every
//! pending "on" node before the next "off" node, and the "off" nodes first in, first out, so
//! distance never decreases along the queue), so a node's first parent is at the shortest
//! distance. The distance of a candidate in a run is therefore the layer where a breadth-first
//! closure over candidate sets meets it, and a hint's complexity (the sum of its chain ends'
//! ancestor counts) follows from the layers alone.
//!
//! What sets cannot tell is the order in which a run made the nodes of one layer, which decides
//! between two hints of one list with the same complexity and the same distance in the list's
//! run: those are settled by replaying that run in the node order until one of them comes up.
//! Nor can they tell where a run that contradicts itself stopped: then the search falls back to
//! `forcing`'s node runs, which give the same result slower.

use std::cell::RefCell;

use super::board::{cells, digits, two_digits, Board, Cells, PEERS};
use super::forcing::{
    forcing_chains, off_consequences, on_consequences, region_places, target_step, Kind,
};
use super::reach::{node, KeptConjugates, Reach};
use super::scale::{length_increment, Technique};
use super::Step;

/// One cell mask per digit (index `digit - 1`).
type Set = [Cells; 9];

const NONE: u32 = u32::MAX;

/// The closure of one candidate assumed on: its layers are `layers[first..first + len]` of the
/// search's arena, layer `k` holding the candidates at distance `k` ("on" for even `k`, "off"
/// for odd `k`).
#[derive(Clone, Copy)]
struct Run {
    /// The start: `cell * 9 + digit - 1`.
    cd: u16,
    on: Set,
    off: Set,
    first: u32,
    len: u32,
}

/// The closures of one search, kept per thread from one search to the next.
struct Closures {
    runs: Vec<Run>,
    layers: Vec<Set>,
    /// Index into `runs` of each candidate's closure, or [`NONE`].
    idx: Vec<u32>,
    /// The candidates (`cell * 9 + digit - 1`) with a closure, to reset `idx`.
    made: Vec<u16>,
    /// One run's "on" and "off" nodes in the order it makes them (see [`Closures::first_made`]).
    order: [Vec<u16>; 2],
    /// Lists whose easiest hints the node run's order decided.
    #[cfg(test)]
    ties: usize,
}

thread_local! {
    static CLOSURES: RefCell<Closures> = RefCell::new(Closures {
        runs: Vec::new(),
        layers: Vec::new(),
        idx: vec![NONE; 729],
        made: Vec::new(),
        order: [Vec::new(), Vec::new()],
        #[cfg(test)]
        ties: 0,
    });
}

thread_local! {
    /// The conjugates of the last board searched on this thread.
    static CONJUGATES: RefCell<Box<KeptConjugates>> = RefCell::new(Box::new(KeptConjugates::EMPTY));
}

/// Why the closures cannot decide a search.
struct Undecided;

impl Closures {
    fn reset(&mut self) {
        for &cd in &self.made {
            self.idx[cd as usize] = NONE;
        }
        self.made.clear();
        #[cfg(test)]
        {
            self.ties = 0;
        }
        self.runs.clear();
        self.layers.clear();
    }

    /// The closure of candidate `d` in `c` assumed on, made the first time; `Undecided` when
    /// it turns some candidate both on and off (the node run stops at the first such node,
    /// which sets cannot place).
    fn run(
        &mut self,
        b: &Board,
        conj: &[[Cells; 81]; 9],
        c: usize,
        d: u8,
    ) -> Result<usize, Undecided> {
        let cd = c * 9 + d as usize - 1;
        let known = self.idx[cd];
        if known != NONE {
            return Ok(known as usize);
        }
        let first = self.layers.len() as u32;
        let mut on: Set = [0; 9];
        on[d as usize - 1] = 1 << c;
        let mut off: Set = [0; 9];
        let mut front = on;
        self.layers.push(front);
        // The digits with a candidate in `front`, and in `next`.
        let mut live: u16 = 1 << (d - 1);
        let mut turning_off = true;
        loop {
            let mut next: Set = [0; 9];
            let mut next_live: u16 = 0;
            for dd in digits(live).map(|d| d as usize - 1) {
                for x in cells(front[dd]) {
                    let m = b.cand[x];
                    let (to, others) = if turning_off {
                        // "On" turns off the digit's other places it sees, and its cell's
                        // other digits.
                        (PEERS[x] & b.pos[dd], m & !(1 << dd))
                    } else {
                        // "Off" turns on the digit's conjugates, and a bivalue cell's other
                        // digit.
                        (conj[dd][x], if two_digits(m) { m & !(1 << dd) } else { 0 })
                    };
                    next[dd] |= to;
                    next_live |= u16::from(to != 0) << dd | others;
                    for e in digits(others) {
                        next[e as usize - 1] |= 1 << x;
                    }
                }
            }
            let (same, other) = if turning_off {
                (&mut off, &on)
            } else {
                (&mut on, &off)
            };
            live = 0;
            for dd in digits(next_live).map(|d| d as usize - 1) {
                if next[dd] & other[dd] != 0 {
                    return Err(Undecided);
                }
                next[dd] &= !same[dd];
                same[dd] |= next[dd];
                live |= u16::from(next[dd] != 0) << dd;
            }
            if live == 0 {
                break;
            }
            self.layers.push(next);
            front = next;
            turning_off = !turning_off;
        }
        let i = self.runs.len();
        self.runs.push(Run {
            cd: cd as u16,
            on,
            off,
            first,
            len: self.layers.len() as u32 - first,
        });
        self.idx[cd] = i as u32;
        self.made.push(cd as u16);
        Ok(i)
    }

    /// Which of the candidates `tied` (in state `on`) run `r` makes first: its nodes in the
    /// node run's order (each pending "on" node before the next "off" node, each node's
    /// consequences in SE's order), until one of them comes up.
    fn first_made(&mut self, b: &Board, r: usize, tied: &Set, on: bool) -> (usize, u8) {
        let start = self.runs[r].cd;
        let [ons, offs] = &mut self.order;
        ons.clear();
        offs.clear();
        let mut seen: [Set; 2] = [[0; 9]; 2];
        // Makes node `q` in `state` unless it is made already; the tied hint it is, if any.
        let mut make = |q: u16, state: bool, list: &mut Vec<u16>| {
            let (c, dd) = (q as usize / 9, q as usize % 9);
            let made = &mut seen[usize::from(state)][dd];
            if *made >> c & 1 != 0 {
                return None;
            }
            *made |= 1 << c;
            list.push(q);
            (state == on && tied[dd] >> c & 1 == 1).then_some((c, dd as u8 + 1))
        };
        if let Some(t) = make(start, true, ons) {
            return t;
        }
        let (mut next_on, mut next_off) = (0, 0);
        loop {
            if let Some(&p) = ons.get(next_on) {
                next_on += 1;
                let mut qs = [0; 32];
                let n = on_consequences(b, true, p, &mut qs);
                for &q in &qs[..n] {
                    if let Some(t) = make(q, false, offs) {
                        return t;
                    }
                }
            } else if let Some(&p) = offs.get(next_off) {
                next_off += 1;
                let mut qs = [(0, 0); 4];
                let n = off_consequences(b, true, p, &mut qs);
                for &(q, _) in &qs[..n] {
                    if let Some(t) = make(q, true, ons) {
                        return t;
                    }
                }
            } else {
                unreachable!("the tied candidates are in the run");
            }
        }
    }

    /// The distance of candidate `d` (index) in `c`, in state `on`, in run `r` (which holds it).
    fn distance(&self, r: usize, dd: usize, c: usize, on: bool) -> usize {
        let run = &self.runs[r];
        let layers = &self.layers[run.first as usize..(run.first + run.len) as usize];
        let mut k = usize::from(!on);
        while layers[k][dd] >> c & 1 == 0 {
            k += 2;
        }
        k
    }
}

/// The best hint so far: its sort key (rating, complexity, hint kind) and target.
struct Best {
    key: (u16, usize, u8),
    /// The target: cell, digit, and whether it is proved on.
    target: Option<(usize, u8, bool)>,
}

/// The easiest multiple forcing chain on `b`, as [`forcing_chains`] with [`Kind::Multiple`]
/// finds it.
pub(super) fn multiple_forcing_chains(b: &Board) -> Option<Step> {
    let found = CONJUGATES.with_borrow_mut(|kept| {
        CLOSURES.with_borrow_mut(|cl| {
            cl.reset();
            search(b, kept.of(b), cl)
        })
    });
    match found {
        Ok(step) => step,
        Err(Undecided) => forcing_chains(b, Kind::Multiple),
    }
}

/// The search of `forcing` for [`Kind::Multiple`], in its order: cells of three or more
/// candidates; for each digit, the houses where the cell is the digit's first place (region
/// hints), then the cell's own hints; each list of hints "on" before "off".
fn search(
    b: &Board,
    conj: &[[Cells; 81]; 9],
    cl: &mut Closures,
) -> Result<Option<Step>, Undecided> {
    let reach = Reach::shared(b, Some(conj));
    let base = Technique::MultipleForcingChain.base();
    let mut best = Best {
        key: (u16::MAX, 0, 0),
        target: None,
    };
    // The cells where an "on" hint makes progress: two or more candidates.
    let mut several: Cells = 0;
    for c in cells(b.empty) {
        if more_than_one(b.cand[c]) {
            several |= 1 << c;
        }
    }
    let mut runs = [0usize; 9];
    for c in cells(b.empty) {
        let m = b.cand[c];
        if m.count_ones() <= 2 {
            continue;
        }
        let cell_ok = reach.implied_by_all(b, digits(m).map(|d| node(c, d, true)));
        for (vi, d) in digits(m).enumerate() {
            // The regions whose places may imply something in common.
            let houses = region_places(b, c, d).map(|p| {
                let common = p != 0 && reach.implied_by_all(b, cells(p).map(|o| node(o, d, true)));
                if common {
                    p
                } else {
                    0
                }
            });
            if !cell_ok && houses == [0; 3] {
                continue;
            }
            runs[vi] = cl.run(b, conj, c, d)?;
            for p in houses.into_iter().filter(|&p| p != 0) {
                let mut place_runs = [0usize; 9];
                let mut n = 0;
                for o in cells(p) {
                    place_runs[n] = cl.run(b, conj, o, d)?;
                    n += 1;
                }
                offer_lists(b, cl, &place_runs[..n], (base, 6, several), &mut best)?;
            }
        }
        if cell_ok {
            let n = m.count_ones() as usize;
            offer_lists(b, cl, &runs[..n], (base, 5, several), &mut best)?;
        }
    }
    Ok(best.target.and_then(|(c, d, on)| {
        let cd = (c * 9 + d as usize - 1) as u16;
        target_step(b, Kind::Multiple, best.key.0, cd, on)
    }))
}

fn more_than_one(m: u16) -> bool {
    m & m.wrapping_sub(1) != 0
}

/// The easiest hints of one list so far.
struct Low {
    /// Rating, complexity, and distance in the list's own run.
    rank: (u16, usize, usize),
    /// The first of them met (cell, digit), and how many there are.
    target: (usize, u8),
    shared: usize,
}

/// Offers the hints of one list: what every run of `runs` (the first is the list's own run)
/// turns on, then what all turn off, each that makes progress, with complexity the sum of its
/// distances plus one per run.
fn offer_lists(
    b: &Board,
    cl: &mut Closures,
    runs: &[usize],
    (base, sort, several): (u16, u8, Cells),
    best: &mut Best,
) -> Result<(), Undecided> {
    for on in [true, false] {
        let mut common: Set = [!0; 9];
        for &r in runs {
            let set = if on { &cl.runs[r].on } else { &cl.runs[r].off };
            for dd in 0..9 {
                common[dd] &= set[dd];
            }
        }
        // The list's easiest hints: (rating, complexity), then the least distance in the
        // list's own run (its run made its nodes in order of distance), and those that share
        // both; the node run's order decides between them.
        let mut low: Option<Low> = None;
        let mut tied: Set = [0; 9];
        for (dd, &mask) in common.iter().enumerate() {
            let mask = if on { mask & several } else { mask & b.pos[dd] };
            for q in cells(mask) {
                let n: usize = runs.iter().map(|&r| cl.distance(r, dd, q, on) + 1).sum();
                let rank = (
                    base + length_increment(n),
                    n,
                    cl.distance(runs[0], dd, q, on),
                );
                match &mut low {
                    Some(l) if rank == l.rank => l.shared += 1,
                    Some(l) if rank > l.rank => continue,
                    _ => {
                        low = Some(Low {
                            rank,
                            target: (q, dd as u8 + 1),
                            shared: 1,
                        });
                        tied = [0; 9];
                    }
                }
                tied[dd] |= 1 << q;
            }
        }
        let Some(Low {
            rank: (rating, n, _),
            target: (mut q, mut d),
            shared,
        }) = low
        else {
            continue;
        };
        if best.target.is_some() && (rating, n, sort) >= best.key {
            continue;
        }
        if shared > 1 {
            (q, d) = cl.first_made(b, runs[0], &tied, on);
            #[cfg(test)]
            {
                cl.ties += 1;
            }
        }
        best.key = (rating, n, sort);
        best.target = Some((q, d, on));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On every state of the golden paths the closures find the hint the node runs find
    /// (falling back to them where a run contradicts itself), and on the states where the
    /// path needed multiple forcing chains or harder (where the engine asks for them: no static
    /// chain, so no run contradicts itself) they decide every search themselves.
    #[test]
    fn closures_find_what_the_node_runs_find() {
        use crate::rate::tests::golden_paths;
        let (mut decided, mut asked, mut ties) = (0, 0, 0);
        for (p, states) in golden_paths() {
            for (b, step) in &states {
                let want = forcing_chains(b, Kind::Multiple);
                let got = CONJUGATES.with_borrow_mut(|kept| {
                    CLOSURES.with_borrow_mut(|cl| {
                        cl.reset();
                        let got = search(b, kept.of(b), cl);
                        ties += cl.ties;
                        got
                    })
                });
                if let Ok(got) = &got {
                    assert_eq!(got, &want, "{p}");
                }
                if step.technique.base() >= Technique::MultipleForcingChain.base() {
                    asked += 1;
                    decided += got.is_ok() as usize;
                }
                assert_eq!(multiple_forcing_chains(b), want, "{p}");
            }
        }
        assert!(
            asked > 20 && decided == asked,
            "{decided} of {asked} decided"
        );
        // The node run's order decided some of them.
        assert!(ties > 0);
    }

    /// Every multiple forcing chain on the golden paths comes with its proof: one chain per
    /// candidate of its cell (every candidate, each assumed on), or per place of its digit in
    /// one house (every place), each link a static link of the board the step was found on
    /// (checked from the rules), all ending in the step's conclusion, with the node count the
    /// rating counts.
    #[test]
    fn explained_multiple_forcing_chains_are_proofs() {
        use crate::rate::board::{bit, HOUSES};
        use crate::rate::chains::tests::is_link;
        use crate::rate::forcing::tests::assert_proof;
        use crate::rate::scale::length_increment;
        let mut checked = 0;
        for (_, states) in crate::rate::tests::golden_paths() {
            for (b, step) in states {
                if step.technique != Technique::MultipleForcingChain {
                    continue;
                }
                let n = assert_proof(&b, &step);
                let base = Technique::MultipleForcingChain.base();
                assert_eq!(step.rating, base + length_increment(n), "{step}");
                let starts: Vec<_> = step.chains.iter().map(|ch| ch[0]).collect();
                assert!(starts.iter().all(|s| s.2), "{step}");
                let (c0, d0) = (starts[0].0 as usize, starts[0].1);
                let cell: u16 = starts.iter().map(|s| bit(s.1)).fold(0, |a, m| a | m);
                let places: Cells = starts.iter().map(|s| 1u128 << s.0).fold(0, |a, m| a | m);
                let one_cell = starts.iter().all(|s| s.0 as usize == c0) && cell == b.cand[c0];
                let one_house = starts.iter().all(|s| s.1 == d0)
                    && HOUSES.iter().any(|&h| b.pos[d0 as usize - 1] & h == places);
                assert!(one_cell || one_house, "{step}");
                for chain in &step.chains {
                    for w in chain.windows(2) {
                        assert!(is_link(&b, w[0], w[1], true), "{step}: {:?}", w);
                    }
                }
                checked += 1;
            }
        }
        assert!(checked >= 3, "only {checked} multiple forcing chains");
    }
}
