//! Chains: bidirectional X-/Y-/XY-cycles (6.5 / 7.0) and forcing X-chains / forcing chains
//! (6.6 / 7.0), all plus SE's length increment, and every cycle of a grid for the nested
//! chains' inner rule (the Nishio, multiple and dynamic forcing chains live in `forcing`; the
//! order of the chaining rules in `rate`).
//!
//! A chain node is a candidate assumed "on" (true) or "off" (false). Static links, computed on
//! the unchanged grid: on -> off for the same digit in the cell's houses (and, with Y links,
//! the cell's other candidates); off -> on for the other place of a digit with two places in a
//! house (X links) and the other candidate of a bivalue cell (Y links). Searches are
//! breadth-first, so each node is reached by a shortest chain, and a chain's complexity is its
//! number of distinct nodes.

use super::board::{bit, cells, digits, holds, houses_of, two_digits, Board, Cells, HOUSES, PEERS};
use super::reach::{node, KeptConjugates, Reach};
use super::scale::{length_increment, Technique};
use super::Step;

/// Link kinds a search may use.
#[derive(Clone, Copy)]
struct Mode {
    x: bool,
    y: bool,
}

/// House kinds in SE's order: box, row, column (indexes into [`houses_of`]).
const KINDS: [usize; 3] = [2, 0, 1];

/// A node: a cell, a digit (1-9), and whether it is on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Pot {
    c: u8,
    d: u8,
    on: bool,
}

impl Pot {
    fn new(c: usize, d: u8, on: bool) -> Pot {
        Pot { c: c as u8, d, on }
    }
    fn cell(self) -> usize {
        self.c as usize
    }
    fn digit(self) -> u8 {
        self.d
    }
    /// Index of the node among all 1458: (cell * 9 + digit - 1) * 2 + on.
    fn index(self) -> usize {
        (self.c as usize * 9 + self.d as usize - 1) * 2 + self.on as usize
    }
}

/// Strong (conjugate) links of the grid: for each digit and cell, the other place of the digit
/// in each house kind (box, row, column) where it has exactly two places.
struct Links {
    /// `partner[d][c][k]`: the partner cell through house kind `KINDS[k]`, or 255.
    partner: [[[u8; 3]; 81]; 9],
    /// `conj[d][c]`: all partners of a cell for a digit (`conj.strong()[d]`: the cells with
    /// one).
    conj: KeptConjugates,
    /// The cells with two candidates.
    biv: Cells,
}

impl Links {
    fn new(b: &Board) -> Box<Links> {
        let mut l = Box::new(Links {
            partner: [[[255; 3]; 81]; 9],
            conj: KeptConjugates::EMPTY,
            biv: 0,
        });
        l.fill(b);
        l
    }

    /// The links of `b`. A digit's links depend only on its places: only the digits whose
    /// conjugates changed since the previous board get their partners again, clearing those of
    /// their previous conjugates.
    fn fill(&mut self, b: &Board) {
        self.biv = b.bivalue();
        let changed = self.conj.changed(b);
        for d in (0..9).filter(|d| changed & 1 << d != 0) {
            for c in cells(self.conj.strong()[d]) {
                self.partner[d][c] = [255; 3];
            }
        }
        let partner = &mut self.partner;
        self.conj.refresh_with(b, |d, h, a, z| {
            let k = match h / 9 {
                2 => 0,
                0 => 1,
                _ => 2,
            };
            partner[d][a][k] = z as u8;
            partner[d][z][k] = a as u8;
        });
    }

    /// `strong[d]`: the cells where digit index `d` has a conjugate.
    #[inline]
    fn strong(&self) -> &[Cells; 9] {
        self.conj.strong()
    }
}

/// The nodes an "on" node turns off, in SE's order (cell's other digits, then box, row,
/// column), without duplicates.
fn on_to_off(b: &Board, p: Pot, mode: Mode, out: &mut Vec<Pot>) {
    out.clear();
    let (c, d) = (p.cell(), p.digit());
    if mode.y {
        for e in digits(b.cand[c]) {
            if e != d {
                out.push(Pot::new(c, e, false));
            }
        }
    }
    let mut seen: Cells = 0;
    let hs = houses_of(c);
    for k in KINDS {
        let p = b.pos_in(d, hs[k]) & !(1u128 << c) & !seen;
        seen |= p;
        for o in cells(p) {
            out.push(Pot::new(o, d, false));
        }
    }
}

/// For each digit e, the cells of `front` that hold some digit other than e (the cells whose
/// Y links reach candidate e).
fn other_digits(front: &[Cells; 9]) -> [Cells; 9] {
    let (mut any, mut twice) = (0u128, 0u128);
    for f in front {
        twice |= any & f;
        any |= f;
    }
    let mut out = [0u128; 9];
    for e in 0..9 {
        out[e] = (any & !front[e]) | (front[e] & twice);
    }
    out
}

/// Bitboard expansion of a whole layer of "on" nodes into the "off" nodes they imply.
fn expand_on(b: &Board, front: &[Cells; 9], mode: Mode, out: &mut [Cells; 9]) {
    for d in 0..9 {
        if front[d] == 0 {
            continue;
        }
        for c in cells(front[d]) {
            out[d] |= PEERS[c] & b.pos[d];
        }
    }
    if mode.y {
        // An on candidate turns off the other candidates of its cell.
        let other = other_digits(front);
        for e in 0..9 {
            out[e] |= b.pos[e] & other[e];
        }
    }
}

/// Bitboard expansion of a layer of "off" nodes into the "on" nodes they imply (X links are
/// always used by forcing chains).
fn expand_off(b: &Board, l: &Links, front: &[Cells; 9], mode: Mode, out: &mut [Cells; 9]) {
    for d in 0..9 {
        // Only a cell where the digit has a conjugate links anywhere.
        for c in cells(front[d] & l.strong()[d]) {
            out[d] |= l.conj[d][c];
        }
    }
    if mode.y {
        // An off candidate of a bivalue cell turns the other one on.
        let other = other_digits(front);
        for e in 0..9 {
            out[e] |= b.pos[e] & l.biv & other[e];
        }
    }
}

/// Length (distinct nodes) of the shortest forcing chain from `src` to its own negation, if
/// any is at most `limit` nodes long (the one-search form of [`Fc`], kept for tests).
#[cfg(test)]
fn forcing_chain_len(b: &Board, l: &Links, src: Pot, mode: Mode, limit: usize) -> Option<usize> {
    let (c, d) = (src.cell(), src.digit() as usize - 1);
    let mut seen_on = [0u128; 9];
    let mut seen_off = [0u128; 9];
    let mut front_on = [0u128; 9];
    let mut front_off = [0u128; 9];
    if src.on {
        seen_on[d] |= 1 << c;
        front_on[d] |= 1 << c;
    } else {
        seen_off[d] |= 1 << c;
        front_off[d] |= 1 << c;
    }
    let mut nodes = 1;
    let mut first = true;
    loop {
        // on layer -> off layer (skipped for the first round of an "off" source)
        if !first || src.on {
            nodes += 1;
            if nodes > limit {
                return None;
            }
            let mut next = [0u128; 9];
            expand_on(b, &front_on, mode, &mut next);
            if src.on && next[d] & (1 << c) != 0 {
                return Some(nodes);
            }
            let mut any = 0;
            for i in 0..9 {
                next[i] &= !seen_off[i];
                seen_off[i] |= next[i];
                any |= next[i];
            }
            front_off = next;
            if any == 0 && !first {
                return None;
            }
        }
        first = false;
        nodes += 1;
        if nodes > limit {
            return None;
        }
        let mut next = [0u128; 9];
        expand_off(b, l, &front_off, mode, &mut next);
        if !src.on && next[d] & (1 << c) != 0 {
            return Some(nodes);
        }
        let mut any = 0;
        for i in 0..9 {
            next[i] &= !seen_on[i];
            seen_on[i] |= next[i];
            any |= next[i];
        }
        front_on = next;
        if any == 0 {
            return None;
        }
    }
}

/// One node of a cycle search, with the index of its first parent.
#[derive(Clone, Copy)]
struct Node {
    pot: Pot,
    parent: u32,
}

const ROOT: u32 = u32::MAX;

/// The per-start state of a cycle walk: which candidates were turned on or expanded off, and
/// the off nodes that can lead anywhere or back to the start.
struct Walk {
    src: Pot,
    mode: Mode,
    /// The on nodes the walk may make (those in the start's component).
    on_span: [Cells; 9],
    /// Candidates (per digit) already turned on.
    to_on: [Cells; 9],
    /// Candidates (per digit) already expanded as off nodes.
    expanded_off: [Cells; 9],
    /// The off nodes that turn something on; the others are dead ends: the walk marks them
    /// expanded but keeps no node for them (they are never a parent).
    live: [Cells; 9],
    /// The off nodes that turn the start back on (the first `np`).
    partners: [Pot; 4],
    np: usize,
}

impl Walk {
    /// A walk from `src` that only makes nodes of `span` (the candidates whose off and on nodes
    /// lie in the start's component): a node outside it never leads back to the start.
    fn new(b: &Board, l: &Links, src: Pot, mode: Mode, span: &[[Cells; 9]; 2]) -> Walk {
        let mut to_on = [0u128; 9];
        to_on[src.digit() as usize - 1] |= 1 << src.cell();
        let mut live = [0u128; 9];
        for (d, v) in live.iter_mut().enumerate() {
            if mode.x {
                *v |= l.strong()[d];
            }
            if mode.y {
                *v |= l.biv & b.pos[d];
            }
            *v &= span[0][d];
        }
        let mut partners = [src; 4];
        let mut np = 0;
        let (sc, sd) = (src.cell(), src.digit());
        if mode.y && b.cand[sc].count_ones() == 2 {
            let e = (b.cand[sc] & !(1 << (sd - 1))).trailing_zeros() as u8 + 1;
            partners[np] = Pot::new(sc, e, false);
            np += 1;
        }
        if mode.x {
            for o in cells(l.conj[sd as usize - 1][sc]) {
                partners[np] = Pot::new(o, sd, false);
                np += 1;
            }
        }
        Walk {
            src,
            mode,
            on_span: span[1],
            to_on,
            expanded_off: [0; 9],
            live,
            partners,
            np,
        }
    }
}

struct CycleSearch {
    /// Per candidate-state: stamp of the node whose ancestors were last marked.
    mark: Vec<u32>,
    stamp: u32,
    pool: Vec<Node>,
    pend_on: Vec<u32>,
    pend_off: Vec<u32>,
    next: Vec<u32>,
    buf: Vec<Pot>,
    found: Vec<u32>,
    /// Walk every start to its end, every return kept, rather than stopping with the first
    /// layer whose cycles eliminate something (nested chains need every cycle).
    exhaustive: bool,
}

impl CycleSearch {
    fn new() -> CycleSearch {
        CycleSearch {
            mark: vec![0; 1458],
            stamp: 0,
            pool: Vec::with_capacity(4096),
            pend_on: Vec::new(),
            pend_off: Vec::new(),
            next: Vec::new(),
            buf: Vec::new(),
            found: Vec::new(),
            exhaustive: false,
        }
    }

    /// Marks the ancestors of pool node `i` with a fresh stamp.
    fn mark_ancestors(&mut self, i: u32) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        let mut a = self.pool[i as usize].parent;
        while a != ROOT {
            let n = self.pool[a as usize];
            self.mark[n.pot.index()] = self.stamp;
            a = n.parent;
        }
    }

    /// SE's cycle walk from `src` (on): alternating layers; an off node is skipped only when it
    /// is an ancestor of the node producing it; on nodes are visited once. Collects the pool
    /// indexes of the chains that return to `src` after at least four half-steps, up to
    /// `max_nodes` nodes. A cycle found at one depth that eliminates something beats every
    /// longer one from the same start, so the walk ends with the layer that finds it, unless
    /// it is `exhaustive`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        b: &Board,
        l: &Links,
        src: Pot,
        mode: Mode,
        span: &[[Cells; 9]; 2],
        max_nodes: usize,
    ) {
        self.pool.clear();
        self.found.clear();
        self.pend_on.clear();
        self.pend_off.clear();
        let mut walk = Walk::new(b, l, src, mode, span);
        self.pool.push(Node {
            pot: src,
            parent: ROOT,
        });
        self.pend_on.push(0);
        let mut length = 0;
        while !self.pend_on.is_empty() || !self.pend_off.is_empty() {
            length += 1;
            // A return found while expanding this layer closes a cycle of length + 1 nodes.
            if length + 1 > max_nodes {
                return;
            }
            let found_before = self.found.len();
            self.expand_on_layer(b, &mut walk, length);
            if !self.exhaustive
                && self.found[found_before..]
                    .iter()
                    .any(|&end| self.eliminates(b, end))
            {
                return;
            }
            // The next "on" layer could only close cycles of length + 3 nodes.
            if length + 3 > max_nodes {
                return;
            }
            length += 1;
            self.expand_off_layer(b, l, &mut walk);
        }
    }

    /// Expands the pending "on" layer (at half-step `length`) into the next "off" layer, which
    /// becomes pending, and records the returns to the start it closes.
    fn expand_on_layer(&mut self, b: &Board, walk: &mut Walk, length: usize) {
        self.next.clear();
        let pend = std::mem::take(&mut self.pend_on);
        for &i in &pend {
            self.push_off_nodes(b, walk, i);
            if length + 1 >= 4 {
                self.record_returns(b, walk, i);
            }
        }
        self.pend_on = pend;
        self.pend_on.clear();
        std::mem::swap(&mut self.pend_off, &mut self.next);
        self.pend_off.append(&mut self.next);
    }

    /// Adds to `next` the new off nodes of on node `i`, in on_to_off's order: the cell's other
    /// digits, then the digit's places in the box, row and column. Every start partner was
    /// reached from the start itself, so no return is ever a new node.
    fn push_off_nodes(&mut self, b: &Board, walk: &mut Walk, i: u32) {
        let p = self.pool[i as usize].pot;
        let (c, d) = (p.cell(), p.digit());
        if walk.mode.y {
            for e in digits(b.cand[c]) {
                let ed = e as usize - 1;
                if e != d && !holds(walk.expanded_off[ed], c) {
                    walk.expanded_off[ed] |= 1 << c;
                    if !holds(walk.live[ed], c) {
                        continue;
                    }
                    self.pool.push(Node {
                        pot: Pot::new(c, e, false),
                        parent: i,
                    });
                    self.next.push(self.pool.len() as u32 - 1);
                }
            }
        }
        let dd = d as usize - 1;
        let all = b.pos[dd] & PEERS[c];
        let mut push = all & !walk.expanded_off[dd] & walk.live[dd];
        walk.expanded_off[dd] |= all;
        if push == 0 {
            return;
        }
        let hs = houses_of(c);
        for k in KINDS {
            let h = HOUSES[hs[k]];
            for oc in cells(push & h) {
                self.pool.push(Node {
                    pot: Pot::new(oc, d, false),
                    parent: i,
                });
                self.next.push(self.pool.len() as u32 - 1);
            }
            push &= !h;
        }
    }

    /// Records in `found` the returns to the start through on node `i`, in on_to_off's order.
    /// An ancestor of node i is already expanded, so SE's ancestor filter only matters for
    /// these; the ancestors are marked only when a return is possible.
    fn record_returns(&mut self, b: &Board, walk: &Walk, i: u32) {
        let p = self.pool[i as usize].pot;
        let (c, d) = (p.cell(), p.digit());
        let partners = &walk.partners[..walk.np];
        let adjacent = partners.iter().any(|q| {
            let (qc, qd) = (q.cell(), q.digit());
            (qd == d && holds(PEERS[c], qc)) || (walk.mode.y && qc == c && qd != d)
        });
        if !adjacent {
            return;
        }
        let mut buf = std::mem::take(&mut self.buf);
        on_to_off(b, p, walk.mode, &mut buf);
        let mut marked = false;
        for &q in &buf {
            if !partners.contains(&q) {
                continue;
            }
            if !marked {
                self.mark_ancestors(i);
                marked = true;
            }
            if self.mark[q.index()] == self.stamp {
                continue;
            }
            // SE expands every occurrence of an off node, but a repeated one only turns on
            // nodes already on; what it can still add is this return to the start, recorded
            // in the order SE would find it.
            self.pool.push(Node { pot: q, parent: i });
            let qi = self.pool.len() as u32 - 1;
            self.pool.push(Node {
                pot: walk.src,
                parent: qi,
            });
            self.found.push(self.pool.len() as u32 - 1);
        }
        self.buf = buf;
    }

    /// Expands the pending "off" layer into the next "on" layer (each on node once), in
    /// off_to_on's order: the bivalue cell's other digit, then the conjugates.
    fn expand_off_layer(&mut self, b: &Board, l: &Links, walk: &mut Walk) {
        let pend = std::mem::take(&mut self.pend_off);
        for &i in &pend {
            let p = self.pool[i as usize].pot;
            let (c, d) = (p.cell(), p.digit());
            let dd = d as usize - 1;
            if walk.mode.y && holds(l.biv, c) {
                let e = (b.cand[c] & !(1 << dd)).trailing_zeros() as usize;
                if !holds(walk.to_on[e], c) {
                    walk.to_on[e] |= 1 << c;
                    if holds(walk.on_span[e], c) {
                        self.pool.push(Node {
                            pot: Pot::new(c, e as u8 + 1, true),
                            parent: i,
                        });
                        self.pend_on.push(self.pool.len() as u32 - 1);
                    }
                }
            }
            if walk.mode.x {
                for o in l.partner[dd][c] {
                    if o != 255 && !holds(walk.to_on[dd], o as usize) {
                        walk.to_on[dd] |= 1 << o;
                        if !holds(walk.on_span[dd], o as usize) {
                            continue;
                        }
                        self.pool.push(Node {
                            pot: Pot::new(o as usize, d, true),
                            parent: i,
                        });
                        self.pend_on.push(self.pool.len() as u32 - 1);
                    }
                }
            }
        }
        self.pend_off = pend;
        self.pend_off.clear();
    }

    /// The nodes of the cycle ending at pool index `end`, from there back to (not including)
    /// its start.
    fn cycle(&self, end: u32) -> impl Iterator<Item = Pot> + '_ {
        let mut i = end;
        std::iter::from_fn(move || {
            let n = self.pool[i as usize];
            (n.parent != ROOT).then(|| {
                i = n.parent;
                n.pot
            })
        })
    }

    /// Per digit, the candidates outside the cycle ending at pool index `end` that see both an
    /// on node and an off node of it: what the cycle eliminates.
    fn seen_both(&self, b: &Board, end: u32) -> [Cells; 9] {
        let loop_cells = self.cycle_cells(end);
        let mut fw = [0u128; 9];
        let mut bk = [0u128; 9];
        for p in self.cycle(end) {
            let d = p.digit() as usize - 1;
            let hit = PEERS[p.cell()] & !loop_cells & b.pos[d];
            if p.on {
                fw[d] |= hit;
            } else {
                bk[d] |= hit;
            }
        }
        std::array::from_fn(|d| fw[d] & bk[d])
    }

    /// Whether the cycle ending at pool index `end` eliminates anything.
    fn eliminates(&self, b: &Board, end: u32) -> bool {
        self.seen_both(b, end).iter().any(|&m| m != 0)
    }

    /// The cells of the cycle ending at pool index `end`.
    fn cycle_cells(&self, end: u32) -> Cells {
        self.cycle(end).fold(0, |lc, p| lc | 1 << p.cell())
    }

    /// Number of nodes of the cycle ending at pool index `end`.
    fn cycle_len(&self, end: u32) -> usize {
        self.cycle(end).count()
    }

    /// Replaces `best` with each cycle of the last walk (from candidate `d` of cell `c`, rated
    /// from `base` as `tech`) that is within the bound, eliminates something and sorts first.
    fn keep_best(
        &self,
        b: &Board,
        (tech, base, sort_key, c, d): (Technique, u16, u8, usize, u8),
        bound: Option<u16>,
        best: &mut Option<(Key, Step)>,
    ) {
        for (fi, &end) in self.found.iter().enumerate() {
            let n = self.cycle_len(end);
            let rating = base + length_increment(n);
            if bound.is_some_and(|r| rating > r) {
                continue;
            }
            let key = (rating, n, sort_key, c as u8, d, 0, fi as u32);
            if best.as_ref().is_some_and(|b| key >= b.0) {
                continue;
            }
            let e = self.cycle_elims(b, end);
            if e.is_empty() {
                continue;
            }
            let mut s = Step::new(tech);
            s.rating = rating;
            s.eliminations = e;
            s.set_cells(self.cycle_cells(end));
            *best = Some((key, s));
        }
    }

    /// The eliminations of the cycle ending at pool index `end`.
    fn cycle_elims(&self, b: &Board, end: u32) -> Vec<(u8, u8)> {
        let both = self.seen_both(b, end);
        let mut e = Vec::new();
        for (d, &m) in both.iter().enumerate() {
            for c in cells(m) {
                e.push((c as u8, d as u8 + 1));
            }
        }
        e
    }
}

/// Ordering of candidate hints: SE sorts by rating, then complexity, then link kind (X, Y,
/// XY), and keeps discovery order (cell, digit, cycles before forcing chains) among ties.
type Key = (u16, usize, u8, u8, u8, u8, u32);

/// One forcing-chain search from a candidate assumed on (or off) to its own negation,
/// advanced one layer at a time (bitboard breadth-first).
///
/// Every link rule is its own contrapositive (a -> b exactly when not-b -> not-a), so a shortest
/// chain of length D from the start to its negation passes a node x with both x and not-x at
/// most ceil(D/2) from the start, and D = min over x of dist(x) + dist(not-x). Exploring radius
/// r therefore settles every chain of length up to 2r: half the depth SE's search needs.
struct Fc {
    c: usize,
    d: usize,
    on: bool,
    /// Index in the [`Layer`] arena of the last layer explored; layer k holds the nodes first
    /// reached at distance k (on nodes when k is even and the start is on, or k is odd and the
    /// start is off).
    last: u32,
    /// Number of layers explored.
    depth: usize,
    /// Shortest chain length (edges) found so far.
    best: Option<usize>,
    done: bool,
    /// Complexity (nodes) of the shortest chain, once settled.
    found: Option<usize>,
}

/// One layer of a forcing-chain search and the index of the search's previous layer.
type Layer = ([Cells; 9], u32);

/// The on and the off nodes a forcing-chain search has reached (kept apart from [`Fc`], so
/// that the rounds over all searches touch little memory).
type Seen = [[Cells; 9]; 2];

impl Fc {
    fn new(c: usize, d: u8, on: bool, arena: &mut Vec<Layer>, seen: &mut Vec<Seen>) -> Fc {
        let d = d as usize - 1;
        let mut first = [0u128; 9];
        first[d] |= 1 << c;
        arena.push((first, u32::MAX));
        let mut s = [[0u128; 9]; 2];
        s[!on as usize][d] |= 1 << c;
        seen.push(s);
        Fc {
            c,
            d,
            on,
            last: arena.len() as u32 - 1,
            depth: 1,
            best: None,
            done: false,
            found: None,
        }
    }

    /// The two chains of the shortest contradiction this search found: from the start to a
    /// candidate on and to the same candidate off (one of them is the start alone when the
    /// start implies its own negation), each a shortest path through the search's layers.
    /// Empty when it found none. For explanations only: the search itself keeps no paths.
    fn chains(
        &self,
        b: &Board,
        l: &Links,
        mode: Mode,
        arena: &[Layer],
    ) -> Vec<Vec<(u8, u8, bool)>> {
        let Some(n) = self.found else {
            return Vec::new();
        };
        // The layers, nearest the start first; layer k holds "on" nodes when k is even for an
        // "on" start (odd for an "off" one).
        let mut layers: Vec<&[Cells; 9]> = Vec::new();
        let mut i = self.last;
        while i != u32::MAX {
            let (layer, prev) = &arena[i as usize];
            layers.push(layer);
            i = *prev;
        }
        layers.reverse();
        let is_on = |k: usize| k.is_multiple_of(2) == self.on;
        let edges = n - 1;
        // A candidate in layer j and, with the other polarity, in layer edges - j.
        for j in 0..layers.len() {
            let Some(k) = edges.checked_sub(j).filter(|&k| k < layers.len() && k > j) else {
                continue;
            };
            if is_on(j) == is_on(k) {
                continue;
            }
            for d in 0..9 {
                if let Some(c) = cells(layers[j][d] & layers[k][d]).next() {
                    return [(j, c), (k, c)]
                        .into_iter()
                        .map(|(m, c)| self.path(b, l, mode, &layers, m, c, d))
                        .collect();
                }
            }
        }
        Vec::new()
    }

    /// A shortest path from the start to candidate `d` (index) of cell `c` in layer `m`: each
    /// node's predecessor is a node of the layer before that links to it.
    #[allow(clippy::too_many_arguments)]
    fn path(
        &self,
        b: &Board,
        l: &Links,
        mode: Mode,
        layers: &[&[Cells; 9]],
        m: usize,
        c: usize,
        d: usize,
    ) -> Vec<(u8, u8, bool)> {
        let is_on = |k: usize| k.is_multiple_of(2) == self.on;
        let mut path = vec![(c as u8, d as u8 + 1, is_on(m))];
        let (mut c, mut d) = (c, d);
        for k in (0..m).rev() {
            // The first node of layer k whose expansion holds (c, d).
            let found = (0..9).find_map(|e| {
                cells(layers[k][e])
                    .find(|&p| {
                        let mut one = [0u128; 9];
                        one[e] = 1 << p;
                        let mut out = [0u128; 9];
                        if is_on(k) {
                            expand_on(b, &one, mode, &mut out);
                        } else {
                            expand_off(b, l, &one, mode, &mut out);
                        }
                        out[d] & 1 << c != 0
                    })
                    .map(|p| (p, e))
            });
            let Some((p, e)) = found else {
                debug_assert!(false, "a layer's node has no predecessor");
                break;
            };
            path.push((p as u8, e as u8 + 1, is_on(k)));
            (c, d) = (p, e);
        }
        path.reverse();
        path
    }

    /// Longest chain (nodes) already settled: every chain up to this many nodes is known.
    fn settled(&self) -> usize {
        if self.done {
            usize::MAX
        } else {
            2 * (self.depth - 1) + 1
        }
    }

    /// Explores one more layer and records chains closed through it.
    fn step(&mut self, b: &Board, l: &Links, mode: Mode, arena: &mut Vec<Layer>, sn: &mut Seen) {
        let k = self.depth;
        // Without Y links a search never leaves its digit.
        let ds = if mode.y { 0..9 } else { self.d..self.d + 1 };
        let last_is_on = (k - 1).is_multiple_of(2) == self.on;
        // The new layer is built in place at the end of the arena (and dropped if empty).
        arena.push(([0u128; 9], self.last));
        let top = arena.len() - 1;
        let (old, new) = arena.split_at_mut(top);
        let next = &mut new[0].0;
        let prev = &old[self.last as usize].0;
        if last_is_on {
            expand_on(b, prev, mode, next);
        } else {
            expand_off(b, l, prev, mode, next);
        }
        let [seen_on, seen_off] = sn;
        let (seen, other) = if last_is_on {
            (seen_off, &*seen_on)
        } else {
            (seen_on, &*seen_off)
        };
        let mut any = 0;
        let mut meet = 0;
        for i in ds.clone() {
            next[i] &= !seen[i];
            seen[i] |= next[i];
            any |= next[i];
            meet |= next[i] & other[i];
        }
        if any == 0 {
            arena.pop();
            self.done = true;
            self.found = self.best.map(|e| e + 1);
            return;
        }
        let next = &arena[arena.len() - 1].0;
        // Pairs (x, not-x) with not-x in this layer and x in an earlier, opposite layer (the
        // opposite layers make up `other`): the nearest such layer gives the shortest chain
        // through this one.
        if meet != 0 {
            // Each candidate of `meet` lies in exactly one opposite layer: walk back until all
            // are placed; the last layer holding one is the nearest.
            let mut left = [0u128; 9];
            for x in ds.clone() {
                left[x] = next[x] & other[x];
            }
            let nearest = nearest_meeting_layer(&arena[..arena.len() - 1], self.last, k, ds, left);
            if let Some(j) = nearest {
                let e = k + j;
                if self.best.is_none_or(|b| e < b) {
                    self.best = Some(e);
                }
            }
        }
        self.last = arena.len() as u32 - 1;
        self.depth += 1;
        if let Some(e) = self.best {
            if e <= 2 * (self.depth - 1) {
                self.found = Some(e + 1);
                self.done = true;
            }
        }
    }
}

/// The distance of the nearest layer, walking back from `arena[last]` (distance `k - 1`),
/// that holds one of the candidates `left` (each lies in exactly one layer of the parity
/// opposite to `k`); only the digits `ds` are looked at.
fn nearest_meeting_layer(
    arena: &[Layer],
    last: u32,
    k: usize,
    ds: std::ops::Range<usize>,
    mut left: [Cells; 9],
) -> Option<usize> {
    let mut nearest = None;
    let mut i = last;
    let mut j = k - 1;
    loop {
        let (layer, p) = &arena[i as usize];
        if j % 2 == (k + 1) % 2 {
            let mut rest = 0;
            let mut hit = false;
            for x in ds.clone() {
                hit |= layer[x] & left[x] != 0;
                left[x] &= !layer[x];
                rest |= left[x];
            }
            if hit {
                nearest = Some(j);
            }
            if rest == 0 {
                break;
            }
        }
        if j == 0 {
            break;
        }
        i = *p;
        j -= 1;
    }
    nearest
}

/// Largest complexity whose rating at `base` is at most `r`: the length (nodes minus two) may
/// pass `r - base` of SE's ceilings 4, 6, 8, 12, 16, ...
fn max_nodes(base: u16, r: u16) -> usize {
    if base > r {
        return 0;
    }
    let mut ceil = 4usize;
    let mut odd = false;
    for _ in 0..(r - base) {
        ceil = if odd { ceil * 4 / 3 } else { ceil * 3 / 2 };
        odd = !odd;
        if ceil > 1 << 20 {
            break;
        }
    }
    ceil + 2
}

const MODES: [(Mode, u8); 3] = [
    (Mode { x: true, y: false }, 2),
    (Mode { x: false, y: true }, 3),
    (Mode { x: true, y: true }, 4),
];

/// The easiest static-chain step (cycles and forcing chains), as SE's first chaining rule
/// would pick it. All searches advance together, one rating tenth at a time, so no search
/// runs deeper than the easiest hint needs.
pub fn static_chains(b: &Board) -> Option<Step> {
    with_scratch(|s| search(b, s, false))
}

/// [`static_chains`], with the chains that prove a forcing-chain step ([`Step::chains`], and
/// their cells in [`Step::cells`]): for explanations, where the search runs again on the board
/// the step was found on (the rating path keeps no chains).
pub fn static_chains_explained(b: &Board) -> Option<Step> {
    with_scratch(|s| search(b, s, true))
}

/// Runs `f` with this thread's buffers (fresh ones if they are in use).
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::new()),
    })
}

/// The buffers of the static-chain searches, kept per thread so that a step reuses them.
struct Scratch {
    links: Box<Links>,
    cycles: CycleSearch,
    fcs: Vec<(usize, Fc)>,
    arena: Vec<Layer>,
    seen: Vec<Seen>,
    /// The forcing-chain starts (cell, digit, on) whose negation they imply.
    starts: Vec<(u8, u8, bool)>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            links: Links::new(&Board::from_parts([0; 81], [0; 81])),
            cycles: CycleSearch::new(),
            fcs: Vec::new(),
            arena: Vec::new(),
            seen: Vec::new(),
            starts: Vec::new(),
        }
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::new());
}

/// [`static_chains`] with the buffers `s`.
fn search(b: &Board, s: &mut Scratch, explain: bool) -> Option<Step> {
    s.links.fill(b);
    // Forcing chains: X links only (6.6) and both kinds (7.0); from "on" and from "off".
    let Scratch {
        links,
        cycles,
        fcs,
        arena,
        seen,
        starts,
    } = s;
    let l = &**links;
    fcs.clear();
    arena.clear();
    seen.clear();
    // One graph with both link kinds serves every mode: a mode's chains are chains of it.
    let shared = Reach::shared(b, Some(l.conj.table()));
    let graph: &Reach = &shared;
    // Only a start whose negation it implies has a chain (of any length), in either mode.
    starts.clear();
    for c in cells(b.empty) {
        if b.cand[c].count_ones() < 2 {
            continue;
        }
        for d in digits(b.cand[c]) {
            for on in [true, false] {
                if graph.reaches(node(c, d, on), node(c, d, !on)) {
                    starts.push((c as u8, d, on));
                }
            }
        }
    }
    for (mi, (mode, _)) in MODES.iter().enumerate() {
        if !mode.x {
            continue;
        }
        for &(c, d, on) in starts.iter() {
            fcs.push((mi, Fc::new(c as usize, d, on, arena, seen)));
        }
    }
    let bound = forcing_bound(b, l, fcs, arena, seen);
    // No forcing chain at any length means no cycle eliminates anything either: a cycle that
    // removes x (seeing an on node a and an off node b of the cycle, same digit) gives the
    // forcing chain x on -> a off -> (the cycle's contrapositive from not-a to not-b) -> b on
    // -> x off, with the links the forcing-chain search of the cycle's kind uses.
    bound?;
    // The easiest forcing chains have the bound's rating; the fewest nodes among them.
    let fewest = bound.map(|r| {
        fcs.iter()
            .filter_map(|(mi, f)| {
                let base = if MODES[*mi].0.y { 70 } else { 66 };
                f.found.filter(|&n| base + length_increment(n) == r)
            })
            .min()
            .unwrap_or(usize::MAX)
    });
    let best = best_cycle(b, l, graph, cycles, fcs, bound, fewest);
    let (best, from) = best_forcing_chain(fcs, bound, best);
    best.map(|(_, mut s)| {
        s.eliminations.sort_unstable();
        if let Some(i) = from.filter(|_| explain) {
            let (mi, f) = &fcs[i];
            s.set_chains(f.chains(b, l, MODES[*mi].0, arena));
        }
        s
    })
}

/// Advances every forcing-chain search one rating tenth at a time until one finds a chain:
/// its rating bounds every hint worth looking at. `None` when no search finds one.
fn forcing_bound(
    b: &Board,
    l: &Links,
    fcs: &mut [(usize, Fc)],
    arena: &mut Vec<Layer>,
    seen: &mut [Seen],
) -> Option<u16> {
    let mut bound: Option<u16> = None;
    let mut r: u16 = 66;
    // The searches not done yet, and the easiest rating among the chains found so far.
    let mut alive: Vec<u32> = (0..fcs.len() as u32).collect();
    let mut easiest = u16::MAX;
    while bound.is_none() {
        let lims = [max_nodes(66, r), 0, max_nodes(70, r)];
        alive.retain(|&i| {
            let (mi, f) = &mut fcs[i as usize];
            let mode = MODES[*mi].0;
            let lim = lims[*mi];
            while !f.done && f.settled() < lim {
                f.step(b, l, mode, arena, &mut seen[i as usize]);
            }
            if let Some(n) = f.found {
                let base = if mode.y { 70 } else { 66 };
                easiest = easiest.min(base + length_increment(n));
            }
            !f.done
        });
        if easiest <= r {
            bound = Some(r);
        }
        if alive.is_empty() {
            break;
        }
        r += 1;
    }
    bound
}

/// The largest cycle (nodes) rated from `base` that sorts before a hint of `rating` with
/// `nodes` nodes: a lower rating, or the same rating and at most `nodes` nodes.
fn cycle_limit(base: u16, rating: u16, nodes: usize) -> usize {
    max_nodes(base, rating.saturating_sub(1)).max(max_nodes(base, rating).min(nodes))
}

/// The members of each start's component ([`Reach::members`]), for the components met so far.
#[derive(Default)]
struct Spans(Vec<(usize, [[Cells; 9]; 2])>);

impl Spans {
    fn of(&mut self, graph: &Reach, k: usize) -> &[[Cells; 9]; 2] {
        let i = match self.0.iter().position(|(sk, _)| *sk == k) {
            Some(i) => i,
            None => {
                self.0.push((k, graph.members(k)));
                self.0.len() - 1
            }
        };
        &self.0[i].1
    }
}

/// Whether a cycle in `mode` through candidate `d` of cell `c` (on) could eliminate anything:
/// it returns to its start through a strong link, all its nodes lie in one component of the
/// graph, and that component must hold what an elimination needs (`eliminating`).
fn may_close(
    b: &Board,
    l: &Links,
    graph: &Reach,
    eliminating: &[bool],
    mode: Mode,
    c: usize,
    d: u8,
) -> bool {
    let on = node(c, d, true);
    if !graph.marked(eliminating, on) {
        return false;
    }
    let y_partner = || {
        let e = (b.cand[c] & !bit(d)).trailing_zeros() as u8 + 1;
        graph.same_component(on, node(c, e, false))
    };
    let x_partner =
        || cells(l.conj[d as usize - 1][c]).any(|o| graph.same_component(on, node(o, d, false)));
    (mode.y && two_digits(b.cand[c]) && y_partner()) || (mode.x && x_partner())
}

/// The best cycle no longer than the bound allows (and not sorting after the easiest forcing
/// chain, which has `fewest` nodes): its sort key and step.
fn best_cycle(
    b: &Board,
    l: &Links,
    graph: &Reach,
    cs: &mut CycleSearch,
    fcs: &[(usize, Fc)],
    bound: Option<u16>,
    fewest: Option<usize>,
) -> Option<(Key, Step)> {
    let mut best: Option<(Key, Step)> = None;
    let mut spans = Spans::default();
    for (mode, sort_key) in MODES {
        let (tech, base) = if mode.x && mode.y {
            (Technique::XYCycle, 70)
        } else if mode.x {
            (Technique::XCycle, 65)
        } else {
            (Technique::YCycle, 65)
        };
        // A cycle must not sort after that forcing chain.
        let lim = match (bound, fewest) {
            (Some(r), Some(n)) => cycle_limit(base, r, n),
            _ => usize::MAX / 4,
        };
        if lim < 4 {
            continue;
        }
        let targets = cycle_targets(fcs, mode, lim);
        if targets.iter().all(|&t| t == 0) {
            continue;
        }
        let eliminating = graph.eliminating_components(b, &targets);
        for c in cells(b.empty) {
            let k = b.cand[c].count_ones();
            if k < 2 || (k > 2 && !mode.x) {
                continue;
            }
            for d in digits(b.cand[c]) {
                if !may_close(b, l, graph, &eliminating, mode, c, d) {
                    continue;
                }
                // Only a cycle with a smaller (rating, complexity) can beat the best so far:
                // the starts and modes still to come sort after it.
                let lim = match &best {
                    Some((key, _)) => lim.min(cycle_limit(base, key.0, key.1.saturating_sub(1))),
                    None => lim,
                };
                if lim < 4 {
                    continue;
                }
                let on = node(c, d, true);
                let k = graph.component(on).expect("a marked node is in the graph");
                cs.run(b, l, Pot::new(c, d, true), mode, spans.of(graph, k), lim);
                let start = (tech, base, sort_key, c, d);
                cs.keep_best(b, start, bound, &mut best);
            }
        }
    }
    best
}

/// A cycle that eliminates something, as [`CycleWalks::each`] gives it.
pub(super) struct FoundCycle<'a> {
    /// SE's sort key of the cycle's kind (2: X, 3: Y, 4: XY) and its base rating (tenths).
    pub sort: u8,
    pub base: u16,
    /// The start (cell, digit; "on") and the cycle's rank among the start's returns.
    pub start: (usize, u8),
    pub rank: u32,
    /// The nodes (cell, digit, on) from the return to the start back to the start's first
    /// successor: each one's predecessor is the next one, the last one's is the start.
    pub nodes: &'a [(usize, u8, bool)],
    /// What it eliminates, per digit.
    pub elims: [Cells; 9],
}

/// SE's X-, Y- and XY-cycles as its static chaining rule lists them when a nested forcing
/// chain runs it on a working grid: every cycle of every start, not only the easiest. Holds
/// the walk's buffers, so a thread keeps one.
pub(super) struct CycleWalks {
    links: Box<Links>,
    cs: CycleSearch,
    nodes: Vec<(usize, u8, bool)>,
}

impl CycleWalks {
    pub(super) fn new() -> CycleWalks {
        let mut cs = CycleSearch::new();
        cs.exhaustive = true;
        CycleWalks {
            links: Links::new(&Board::from_parts([0; 81], [0; 81])),
            cs,
            nodes: Vec::new(),
        }
    }

    /// Calls `f` with every cycle on `b` that eliminates something, in SE's order of discovery
    /// (X, then Y, then XY cycles; start by start; returns in walk order). `graph` is `b`'s
    /// implication graph: a start whose component can eliminate nothing, or that cannot
    /// return to itself, is skipped (exact tests, see [`Reach`]).
    pub(super) fn each(&mut self, b: &Board, graph: &Reach, mut f: impl FnMut(&FoundCycle<'_>)) {
        let targets = graph.self_refuting(b);
        if targets.iter().all(|&t| t == 0) {
            return;
        }
        self.links.fill(b);
        let eliminating = graph.eliminating_components(b, &targets);
        let mut spans = Spans::default();
        let CycleWalks { links, cs, nodes } = self;
        for (mode, sort) in MODES {
            let base = if mode.x && mode.y { 70 } else { 65 };
            for c in cells(b.empty) {
                let k = b.cand[c].count_ones();
                if k < 2 || (k > 2 && !mode.x) {
                    continue;
                }
                for d in digits(b.cand[c]) {
                    if !may_close(b, links, graph, &eliminating, mode, c, d) {
                        continue;
                    }
                    let comp = graph
                        .component(node(c, d, true))
                        .expect("a marked node is in the graph");
                    let start = Pot::new(c, d, true);
                    cs.run(b, links, start, mode, spans.of(graph, comp), usize::MAX / 4);
                    for (rank, &end) in cs.found.iter().enumerate() {
                        let elims = cs.seen_both(b, end);
                        if elims.iter().all(|&m| m == 0) {
                            continue;
                        }
                        nodes.clear();
                        nodes.extend(cs.cycle(end).map(|p| (p.cell(), p.digit(), p.on)));
                        f(&FoundCycle {
                            sort,
                            base,
                            start: (c, d),
                            rank: rank as u32,
                            nodes,
                            elims,
                        });
                    }
                }
            }
        }
    }
}

/// The candidates (per digit) that a cycle in `mode` of at most `lim` nodes could eliminate.
///
/// A cycle of `n` nodes that removes `x` (seeing an "on" node `a` and an "off" node `b` of
/// it, in its digit) gives the forcing chain `x` on -> `a` off -> (the cycle's contrapositive,
/// at most `n` nodes from not-`a` to not-`b`) -> `b` on -> `x` off: at most `n + 2` nodes, with
/// X links only for an X-cycle and both kinds otherwise. So `x` is a target only when the
/// search of that kind from `x` on found a chain of at most `lim + 2` nodes, or has not yet
/// settled that length. A candidate with no search has no chain at all.
fn cycle_targets(fcs: &[(usize, Fc)], mode: Mode, lim: usize) -> [Cells; 9] {
    let mi = chain_search_of(mode);
    let mut t = [0; 9];
    for (m, f) in fcs {
        if *m != mi || !f.on {
            continue;
        }
        let possible = match f.found {
            Some(n) => n <= lim + 2,
            None => !f.done && f.settled() < lim + 2,
        };
        if possible {
            t[f.d] |= 1 << f.c;
        }
    }
    t
}

/// The index in [`MODES`] of the forcing-chain search whose links a cycle in `mode` uses: the
/// searches run in modes X (0) and X and Y (2), and a Y-cycle's links are among the latter's.
fn chain_search_of(mode: Mode) -> usize {
    if mode.y {
        2
    } else {
        0
    }
}

/// The forcing chains within the bound: `best` (a cycle's) or an easier forcing chain, with
/// the index in `fcs` of the search that found it (`None`: the cycle's, or none).
fn best_forcing_chain(
    fcs: &[(usize, Fc)],
    bound: Option<u16>,
    mut best: Option<(Key, Step)>,
) -> (Option<(Key, Step)>, Option<usize>) {
    let mut from = None;
    for (i, (mi, f)) in fcs.iter().enumerate() {
        let (mode, sort_key) = MODES[*mi];
        let base = if mode.y { 70 } else { 66 };
        let Some(n) = f.found else { continue };
        let rating = base + length_increment(n);
        if bound.is_some_and(|r| rating > r) {
            continue;
        }
        let (c, d, on) = (f.c, f.d as u8 + 1, f.on);
        let key = (rating, n, sort_key, c as u8, d, 1 + !on as u8, 0);
        if best.as_ref().is_some_and(|b| key >= b.0) {
            continue;
        }
        let t = if mode.y {
            Technique::ForcingChain
        } else {
            Technique::ForcingXChain
        };
        // A start proved off is eliminated; one proved on is placed, as SE applies it.
        let mut s = if on {
            Step::eliminate(t, d, 1 << c, 1 << c)
        } else {
            Step::place(t, c, d, 1 << c)
        };
        s.rating = rating;
        best = Some((key, s));
        from = Some(i);
    }
    (best, from)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rate::board::cell_name;

    /// Whether `to` follows from `from` by one static link of `b` (with Y links, inside a cell,
    /// when `y`): on to off, the digit leaves a peer (or the cell's other digits go); off to
    /// on, the other place of a conjugate pair (or the other digit of a bivalue cell). Checked
    /// from the rules, not by the search.
    pub(crate) fn is_link(b: &Board, from: (u8, u8, bool), to: (u8, u8, bool), y: bool) -> bool {
        use crate::rate::board::{bit, HOUSES};
        let ((c, d, on), (c2, d2, on2)) = (from, to);
        let (cu, c2u) = (c as usize, c2 as usize);
        if on == on2 {
            return false;
        }
        if on {
            (d2 == d && c2 != c && PEERS[cu] & 1 << c2 != 0) || (y && c2 == c && d2 != d)
        } else {
            // A strong link: the only two places of `d` in a house.
            let conjugate = HOUSES
                .iter()
                .any(|&h| b.pos[d as usize - 1] & h == (1u128 << cu | 1u128 << c2u));
            (d2 == d && c2 != c && conjugate) || (y && c2 == c && b.cand[cu] == bit(d) | bit(d2))
        }
    }

    /// Every forcing-chain step on the golden paths comes with its proof: two chains from the
    /// step's assumption, each link a link of the board the step was found on (checked from the
    /// rules, not by the search), ending in one candidate on and off, as many distinct nodes as
    /// the rating counts.
    #[test]
    fn explained_forcing_chains_are_proofs() {
        use crate::rate::board::bit;
        use crate::rate::scale::length_increment;
        let holds = |b: &Board, c: u8, d: u8| b.cand[c as usize] & bit(d) != 0;
        let mut checked = 0;
        for (_, states) in crate::rate::tests::golden_paths() {
            for (b, step) in states {
                let y = match step.technique {
                    Technique::ForcingChain => true,
                    Technique::ForcingXChain => false,
                    _ => continue,
                };
                assert_eq!(step.chains.len(), 2, "{step}");
                let start = step.chains[0][0];
                // The assumption is the target: on when it is eliminated, off when placed.
                let target = step
                    .eliminations
                    .first()
                    .map(|&(c, d)| (c, d, true))
                    .or_else(|| step.placements.first().map(|&(c, d)| (c, d, false)))
                    .unwrap();
                assert_eq!(start, target, "{step}");
                for chain in &step.chains {
                    assert_eq!(chain[0], start, "{step}");
                    for w in chain.windows(2) {
                        let ((c, d, _), (c2, d2, _)) = (w[0], w[1]);
                        assert!(holds(&b, c, d) && holds(&b, c2, d2), "{step}");
                        let link = is_link(&b, w[0], w[1], y);
                        assert!(link, "{step}: no link {:?} -> {:?}", w[0], w[1]);
                    }
                }
                let (a, z) = (
                    *step.chains[0].last().unwrap(),
                    *step.chains[1].last().unwrap(),
                );
                assert!(a.0 == z.0 && a.1 == z.1 && a.2 != z.2, "{step}");
                let nodes = step.chains[0].len() + step.chains[1].len() - 1;
                let base = if y { 70 } else { 66 };
                assert_eq!(step.rating, base + length_increment(nodes), "{step}");
                checked += 1;
            }
        }
        assert!(
            checked >= 5,
            "only {checked} forcing chains on the golden paths"
        );
    }

    /// Links refilled state after state, in path order and then across paths, are the links
    /// built afresh for each state.
    #[test]
    fn refilled_links_are_fresh_links() {
        use crate::rate::tests::golden_paths;
        let mut l = Links::new(&Board::from_parts([0; 81], [0; 81]));
        let mut states = 0;
        for (_, path) in golden_paths() {
            for (b, _) in &path {
                l.fill(b);
                let f = Links::new(b);
                assert_eq!(l.partner, f.partner);
                assert_eq!(l.conj, f.conj);
                assert_eq!((l.biv, l.strong()), (f.biv, f.strong()));
                states += 1;
            }
        }
        assert!(states > 100);
    }

    /// Every candidate of `b`, as (cell, digit).
    fn candidates(b: &Board) -> impl Iterator<Item = (usize, u8)> + '_ {
        cells(b.empty).flat_map(move |c| digits(b.cand[c]).map(move |d| (c, d)))
    }

    #[test]
    fn meet_in_the_middle_lengths_match_the_plain_search() {
        use crate::rate::tests::golden_state;
        for t in [
            Technique::ForcingXChain,
            Technique::ForcingChain,
            Technique::Nishio,
        ] {
            let (b, _, _) = golden_state(t);
            let l = Links::new(&b);
            for (mode, _) in MODES {
                if !mode.x {
                    continue;
                }
                for (c, d) in candidates(&b) {
                    for on in [true, false] {
                        let mut arena = Vec::new();
                        let mut seen = Vec::new();
                        let mut f = Fc::new(c, d, on, &mut arena, &mut seen);
                        while !f.done {
                            f.step(&b, &l, mode, &mut arena, &mut seen[0]);
                        }
                        let plain = forcing_chain_len(&b, &l, Pot::new(c, d, on), mode, 10_000);
                        assert_eq!(f.found, plain, "{} {d} on={on}", cell_name(c));
                    }
                }
            }
        }
    }

    /// A cycle walk that only makes nodes of the start's component finds the same cycles, in
    /// the same order, as one that makes every node.
    #[test]
    fn a_walk_kept_to_its_component_finds_the_same_cycles() {
        use crate::rate::board::ALL;
        use crate::rate::tests::golden_state;
        let cycles = |cs: &CycleSearch| -> Vec<Vec<Pot>> {
            cs.found
                .iter()
                .map(|&end| cs.cycle(end).collect())
                .collect()
        };
        let (mut found, mut smaller) = (0, 0);
        for t in [
            Technique::XCycle,
            Technique::YCycle,
            Technique::ForcingChain,
        ] {
            let (b, _, _) = golden_state(t);
            let l = Links::new(&b);
            let graph = Reach::new(&b);
            let (mut full, mut kept) = (CycleSearch::new(), CycleSearch::new());
            for (mode, _) in MODES {
                for (c, d) in candidates(&b) {
                    let on = node(c, d, true);
                    let Some(k) = graph.component(on) else {
                        continue;
                    };
                    let start = Pot::new(c, d, true);
                    full.run(&b, &l, start, mode, &[[ALL; 9]; 2], 24);
                    kept.run(&b, &l, start, mode, &graph.members(k), 24);
                    assert_eq!(cycles(&kept), cycles(&full), "{t:?} {} {d}", cell_name(c));
                    found += full.found.len();
                    smaller += (kept.pool.len() < full.pool.len()) as usize;
                }
            }
        }
        assert!(
            found > 0 && smaller > 0,
            "{found} cycles, {smaller} smaller walks"
        );
    }

    /// The starts `static_chains` skips have no chain: every start whose search finds a
    /// forcing chain, and every start of a cycle that eliminates something, passes the tests.
    #[test]
    fn skipped_starts_have_no_chain() {
        use crate::rate::board::ALL;
        use crate::rate::tests::golden_state;
        let (mut chains, mut cycles) = (0, 0);
        for t in [
            Technique::XCycle,
            Technique::YCycle,
            Technique::ForcingXChain,
            Technique::ForcingChain,
            Technique::Nishio,
        ] {
            let (b, _, _) = golden_state(t);
            let l = Links::new(&b);
            let graph = Reach::new(&b);
            let eliminating = graph.eliminating_components(&b, &graph.self_refuting(&b));
            let mut cs = CycleSearch::new();
            for (mode, _) in MODES {
                for (c, d) in candidates(&b) {
                    for on in [true, false] {
                        let (mut arena, mut seen) = (Vec::new(), Vec::new());
                        let mut f = Fc::new(c, d, on, &mut arena, &mut seen);
                        while mode.x && !f.done {
                            f.step(&b, &l, mode, &mut arena, &mut seen[0]);
                        }
                        let reaches = graph.reaches(node(c, d, on), node(c, d, !on));
                        if mode.x && mode.y {
                            assert_eq!(f.found.is_some(), reaches, "{t:?} {} {d}", cell_name(c));
                        }
                        if mode.x && f.found.is_some() {
                            assert!(reaches);
                            chains += 1;
                        }
                    }
                    cs.run(&b, &l, Pot::new(c, d, true), mode, &[[ALL; 9]; 2], 64);
                    let on = node(c, d, true);
                    for i in 0..cs.found.len() {
                        let end = cs.found[i];
                        if !cs.eliminates(&b, end) {
                            continue;
                        }
                        let partner = cs.pool[cs.pool[end as usize].parent as usize].pot;
                        assert!(graph.marked(&eliminating, on), "{t:?} {} {d}", cell_name(c));
                        assert!(
                            graph.same_component(on, node(partner.cell(), partner.digit(), false))
                        );
                        // Each candidate it removes has a forcing chain of the matching kind
                        // of at most n + 2 nodes (what `cycle_targets` relies on).
                        let n = cs.cycle_len(end);
                        let fc_mode = MODES[chain_search_of(mode)].0;
                        for (x, e) in cs.cycle_elims(&b, end) {
                            let (mut arena, mut seen) = (Vec::new(), Vec::new());
                            let mut f = Fc::new(x as usize, e, true, &mut arena, &mut seen);
                            while !f.done {
                                f.step(&b, &l, fc_mode, &mut arena, &mut seen[0]);
                            }
                            let found = f.found.expect("a removed candidate has a chain");
                            assert!(found <= n + 2, "{t:?}: {found} nodes, cycle of {n}");
                        }
                        cycles += 1;
                    }
                }
            }
        }
        assert!(chains > 0 && cycles > 0, "{chains} chains, {cycles} cycles");
    }

    #[test]
    fn max_nodes_inverts_the_length_increment() {
        for base in [65u16, 66, 70] {
            for r in base..base + 12 {
                let n = max_nodes(base, r);
                assert!(base + length_increment(n) <= r);
                assert!(base + length_increment(n + 1) > r);
            }
        }
    }
    use crate::rate::board::bit;

    #[test]
    fn forcing_x_chain_on_a_digit_with_conjugate_pairs() {
        // Digit 1 only in r1c1, r1c5, r5c5, r5c2 and r2c2: each consecutive two (and r2c2 with
        // r1c1, in box 1) are the only places of 1 in a row, column or box. Assuming r1c1 is 1:
        // r1c5 is not (row 1), so r5c5 is (column 5), r5c2 is not (row 5), r2c2 is (column 2),
        // and r1c1 is not (box 1): a forcing X-chain of 6 nodes, rated 6.6.
        let mut cand = [0x1ffu16 & !bit(1); 81];
        for c in [0usize, 4, 40, 37, 10] {
            cand[c] |= bit(1);
        }
        let b = Board::from_parts([0; 81], cand);
        let l = Links::new(&b);
        let x = Mode { x: true, y: false };
        assert_eq!(
            forcing_chain_len(&b, &l, Pot::new(0, 1, true), x, 100),
            Some(6)
        );
        let s = static_chains(&b).unwrap();
        assert_eq!(s.technique, Technique::ForcingXChain);
        assert_eq!(s.rating, 66);
        assert_eq!(s.eliminations, vec![(0, 1)]);
    }

    #[test]
    fn cycles_and_forcing_chains_on_real_states() {
        use crate::rate::tests::golden_state;
        for t in [
            Technique::XCycle,
            Technique::YCycle,
            Technique::XYCycle,
            Technique::ForcingXChain,
            Technique::ForcingChain,
        ] {
            let (b, step, sol) = golden_state(t);
            // The path's step is the explained search's; the rating path's is the same step
            // without the chains (and their cells).
            let s = static_chains_explained(&b).unwrap();
            assert_eq!(s, step);
            let plain = static_chains(&b).unwrap();
            assert!(plain.chains.is_empty());
            assert!(plain.same_hint(&s), "{plain} / {s}");
            assert!(!s.eliminations.is_empty() || !s.placements.is_empty());
            for &(c, d) in &s.eliminations {
                assert!(b.has(c as usize, d));
                assert_ne!(sol.get(c as usize), d, "{t:?} removes the solution digit");
            }
            for &(c, d) in &s.placements {
                assert!(b.has(c as usize, d));
                assert_eq!(sol.get(c as usize), d, "{t:?} places a wrong digit");
            }
        }
    }

    /// A forcing chain from a candidate assumed off that proves it on places it, as SE applies
    /// such a hint (the digit leaves the cell's peers in the same step). On this puzzle (made
    /// by `generate`; serate 1.2.1.3: 7.2/3.4/3.4 in 66 steps, its step 20 "Forcing Chain: C4.6
    /// on" placing r4c3=6) the chain from r4c3=6 off (10 nodes) is easier than the one from
    /// r4c3=2 on (12 nodes), both 7.2.
    #[test]
    fn a_forcing_chain_that_proves_a_candidate_on_places_it() {
        let p: crate::Grid =
            "....6.....61......7.9.....8....3.1...1..4..29...6..3.4.2....5..6.4.58..7.57....3."
                .parse()
                .unwrap();
        let (r, steps) = crate::rate::explain(&p, &crate::rate::Limits::default());
        assert_eq!(r.se_string(), "7.2/3.4/3.4");
        assert_eq!(steps.len(), 66);
        let s = &steps[19];
        assert_eq!((s.technique, s.rating), (Technique::ForcingChain, 72));
        assert_eq!(s.placements[..], [(29, 6)]);
        assert!(s.eliminations.is_empty());
    }
}
