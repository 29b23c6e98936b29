//! Reachability in the static implication graph of a candidate grid: its strongly connected
//! components and, for each node, every node it implies, whatever the chain's length.
//!
//! The chain searches in `chains` look for the shortest chain of each start, layer by layer, and
//! a start with no chain at all is explored to the end. One pass over the whole graph tells
//! which starts can have a chain at all, so the searches skip the others: a forcing chain from
//! `x` needs `not-x` reachable from `x`, and a cycle through `x` needs `x` and one of its strong
//! partners in one component, which must also hold the two nodes that see an eliminated
//! candidate. These are exact tests (they hold for a chain of any length), so skipping the
//! starts that fail them changes no result.
//!
//! Nodes are `(cell * 9 + digit - 1) * 2 + on`. The links are the static ones of a chain
//! search (see `chains`), both kinds: "on" turns off the digit's other places in the cell's
//! houses and the cell's other candidates; "off" turns on the digit's conjugate places (X links)
//! and the other candidate of a bivalue cell (Y links). A search with one kind of link only
//! follows some of these, so its chains are chains of this graph, and the tests stay exact.

use std::cell::RefCell;
use std::rc::Rc;

use super::board::{cells, digits, two, two_digits, Board, Cells, HOUSES, PEERS};

thread_local! {
    /// The last graph [`Reach::shared`] built, and the candidates it was built for.
    static LAST: RefCell<Option<([Cells; 9], Rc<Reach>)>> = const { RefCell::new(None) };
}

/// Nodes of the graph: two per candidate.
const NODES: usize = 81 * 9 * 2;
/// Not a node of the grid (its candidate is gone), or not visited yet.
const NONE: u16 = u16::MAX;

/// The node of candidate `d` (1-9) in cell `c`, on or off.
#[inline]
pub(super) fn node(c: usize, d: u8, on: bool) -> usize {
    (c * 9 + d as usize - 1) * 2 + on as usize
}

/// The components of one graph and the nodes each reaches.
pub(super) struct Reach {
    /// Dense index of each node of the grid ([`NONE`] for the others).
    id: Box<[u16; SLOTS]>,
    /// The node of each dense index.
    node: Vec<u16>,
    /// Component of each dense node.
    comp: Vec<u16>,
    /// Words of a node set (one bit per dense node).
    words: usize,
    /// Number of components.
    comps: usize,
    /// Components with a reachable set: the others (numbered from here) are single nodes with
    /// no links out, which reach only themselves.
    with_sets: usize,
    /// The dense nodes each component reaches (itself included), `words` per component.
    reach: Vec<u64>,
}

impl Reach {
    /// The graph of `b`.
    pub(super) fn new(b: &Board) -> Reach {
        Reach::with_conjugates(b, &conjugates(b))
    }

    /// The graph of `b` (whose [`conjugates`] are `conj`, when given), shared with the last
    /// caller on this thread that asked for the same candidates (the static chains and the
    /// multiple forcing chains of one step both need it).
    pub(super) fn shared(b: &Board, conj: Option<&[[Cells; 81]; 9]>) -> Rc<Reach> {
        LAST.with_borrow_mut(|last| match last {
            Some((pos, r)) if *pos == b.pos => r.clone(),
            _ => {
                // Freed first, so that the new graph reuses its memory.
                *last = None;
                let r = Rc::new(match conj {
                    Some(conj) => Reach::with_conjugates(b, conj),
                    None => Reach::with_conjugates(b, &conjugates(b)),
                });
                *last = Some((b.pos, r.clone()));
                r
            }
        })
    }

    /// The graph of `b`, whose [`conjugates`] are `conj`.
    pub(super) fn with_conjugates(b: &Board, conj: &[[Cells; 81]; 9]) -> Reach {
        WORK.with_borrow_mut(|w| w.build(b, conj))
    }

    /// Number of components.
    fn components(&self) -> usize {
        self.comps
    }

    /// The component of a node of the grid.
    #[inline]
    pub(super) fn component(&self, n: usize) -> Option<usize> {
        let i = self.id[n & MASK];
        (i != NONE).then(|| self.comp[i as usize] as usize)
    }

    /// The candidates (per digit) whose "on" node, and those whose "off" node, lie in component
    /// `k`.
    pub(super) fn members(&self, k: usize) -> [[Cells; 9]; 2] {
        let mut m = [[0; 9]; 2];
        for (i, &n) in self.node.iter().enumerate() {
            if self.comp[i] as usize == k {
                let n = n as usize;
                let (cd, on) = (n / 2, n % 2);
                m[on][cd % 9] |= 1 << (cd / 9);
            }
        }
        m
    }

    /// Whether nodes `a` and `b` lie on one cycle of links (one component).
    #[inline]
    pub(super) fn same_component(&self, a: usize, b: usize) -> bool {
        matches!((self.component(a), self.component(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether some chain leads from node `a` to node `b`.
    #[inline]
    pub(super) fn reaches(&self, a: usize, b: usize) -> bool {
        match (self.component(a), self.id[b & MASK]) {
            (Some(ca), i) if i != NONE => {
                if ca >= self.with_sets {
                    return a == b;
                }
                let i = i as usize;
                self.reach[ca * self.words + i / 64] >> (i % 64) & 1 != 0
            }
            _ => false,
        }
    }

    /// The candidates (per digit) whose "on" node implies their "off" node.
    pub(super) fn self_refuting(&self, b: &Board) -> [Cells; 9] {
        std::array::from_fn(|i| {
            let d = i as u8 + 1;
            cells(b.pos[i])
                .filter(|&x| self.reaches(node(x, d, true), node(x, d, false)))
                .fold(0, |m, x| m | 1 << x)
        })
    }

    /// For each component, whether a cycle within it could eliminate one of the candidates
    /// `targets` (per digit; each must imply its own negation): the candidate sees, in its
    /// digit, an "on" node and an "off" node of the component (a cycle removes a candidate only
    /// so).
    pub(super) fn eliminating_components(&self, b: &Board, targets: &[Cells; 9]) -> Vec<bool> {
        let mut useful = vec![false; self.components()];
        let mut seen_on = vec![u32::MAX; self.components()];
        for d in 1..=9u8 {
            for x in cells(targets[d as usize - 1]) {
                let seen = PEERS[x] & b.pos[d as usize - 1];
                let stamp = (x * 9 + d as usize) as u32;
                for c in cells(seen) {
                    if let Some(k) = self.component(node(c, d, true)) {
                        seen_on[k] = stamp;
                    }
                }
                for c in cells(seen) {
                    if let Some(k) = self.component(node(c, d, false)) {
                        useful[k] |= seen_on[k] == stamp;
                    }
                }
            }
        }
        useful
    }

    /// Whether some node is implied by every node of `starts` and would make progress: an
    /// "off" node (a candidate to remove) or an "on" node of a cell with other candidates.
    pub(super) fn implied_by_all(&self, b: &Board, starts: impl Iterator<Item = usize>) -> bool {
        // A node set has at most `NODES / 64` words (23).
        let mut common = [!0u64; NODES.div_ceil(64)];
        let common = &mut common[..self.words];
        let mut any = false;
        for n in starts {
            let Some(k) = self.component(n) else {
                return false;
            };
            any = true;
            if k >= self.with_sets {
                // A node with no links out reaches only itself.
                let i = self.id[n & MASK] as usize;
                for (w, a) in common.iter_mut().enumerate() {
                    *a &= if w == i / 64 { 1 << (i % 64) } else { 0 };
                }
                continue;
            }
            let set = &self.reach[k * self.words..(k + 1) * self.words];
            common.iter_mut().zip(set).for_each(|(a, s)| *a &= s);
        }
        any && common.iter().enumerate().any(|(w, &bits)| {
            let mut bits = bits;
            while bits != 0 {
                if progress(
                    b,
                    self.node[w * 64 + bits.trailing_zeros() as usize] as usize,
                ) {
                    return true;
                }
                bits &= bits - 1;
            }
            false
        })
    }

    /// Whether node `n`'s component is marked in `marks` (from
    /// [`Reach::eliminating_components`]).
    #[inline]
    pub(super) fn marked(&self, marks: &[bool], n: usize) -> bool {
        self.component(n).is_some_and(|k| marks[k])
    }
}

/// Whether node `n` would make progress as a hint's conclusion: an "off" node (a candidate to
/// remove) or an "on" node of a cell with other candidates.
fn progress(b: &Board, n: usize) -> bool {
    n.is_multiple_of(2) || b.cand[n / 18].count_ones() > 1
}

/// `conj[d][c]`: the cells that are `c`'s only other place for digit `d + 1` in a house.
pub(super) fn conjugates(b: &Board) -> [[Cells; 81]; 9] {
    let mut conj = [[0; 81]; 9];
    for (d, conj) in conj.iter_mut().enumerate() {
        digit_conjugates(b.pos[d], conj);
    }
    conj
}

/// Adds to `conj` (all empty) the conjugates of a digit whose places are `places`.
fn digit_conjugates(places: Cells, conj: &mut [Cells; 81]) {
    for (_, a, z) in conjugate_pairs(places) {
        conj[a] |= 1 << z;
        conj[z] |= 1 << a;
    }
}

/// The houses (index into [`HOUSES`], in order) where a digit whose places are `places` has
/// exactly two, with those two cells (the lower first).
fn conjugate_pairs(places: Cells) -> impl Iterator<Item = (usize, usize, usize)> {
    HOUSES.iter().enumerate().filter_map(move |(h, house)| {
        let p = places & house;
        two(p).then(|| {
            let (a, z) = (
                p.trailing_zeros() as usize,
                127 - p.leading_zeros() as usize,
            );
            (h, a, z)
        })
    })
}

/// [`conjugates`] kept from one board to the next: a digit's depend only on its places, so only
/// the digits whose places changed are refilled, clearing only their previous conjugates.
/// Indexed by digit (`0..9`) like the table.
#[derive(Debug, PartialEq)]
pub(super) struct KeptConjugates {
    conj: [[Cells; 81]; 9],
    /// `strong[d]`: the cells with a conjugate for digit index `d`.
    strong: [Cells; 9],
    /// The places the conjugates are those of (none: no conjugates, as at the start).
    pos: [Cells; 9],
}

impl KeptConjugates {
    /// No places, no conjugates.
    pub(super) const EMPTY: KeptConjugates = KeptConjugates {
        conj: [[0; 81]; 9],
        strong: [0; 9],
        pos: [0; 9],
    };

    /// The digits (bit `d` for index `d`) whose places differ on `b` from the last board
    /// refreshed.
    pub(super) fn changed(&self, b: &Board) -> u16 {
        (0..9).fold(0, |m, d| m | u16::from(self.pos[d] != b.pos[d]) << d)
    }

    /// Refills the conjugates of the digits whose places differ on `b`, handing each new pair
    /// to `pair` as (digit index, house, lower cell, higher cell).
    pub(super) fn refresh_with(
        &mut self,
        b: &Board,
        mut pair: impl FnMut(usize, usize, usize, usize),
    ) {
        for d in 0..9 {
            if self.pos[d] == b.pos[d] {
                continue;
            }
            for c in cells(self.strong[d]) {
                self.conj[d][c] = 0;
            }
            let mut strong = 0;
            for (h, a, z) in conjugate_pairs(b.pos[d]) {
                self.conj[d][a] |= 1 << z;
                self.conj[d][z] |= 1 << a;
                strong |= 1 << a | 1 << z;
                pair(d, h, a, z);
            }
            self.strong[d] = strong;
            self.pos[d] = b.pos[d];
        }
    }

    /// The table of the last board refreshed.
    #[inline]
    pub(super) fn table(&self) -> &[[Cells; 81]; 9] {
        &self.conj
    }

    /// The cells with a conjugate for each digit index, on the last board refreshed.
    #[inline]
    pub(super) fn strong(&self) -> &[Cells; 9] {
        &self.strong
    }

    /// The conjugates of `b`.
    pub(super) fn of(&mut self, b: &Board) -> &[[Cells; 81]; 9] {
        self.refresh_with(b, |_, _, _, _| {});
        &self.conj
    }
}

impl std::ops::Index<usize> for KeptConjugates {
    type Output = [Cells; 81];
    #[inline]
    fn index(&self, d: usize) -> &[Cells; 81] {
        &self.conj[d]
    }
}

/// Slots of the fixed arrays indexed by node: a power of two above [`NODES`], so that an index
/// masked with [`MASK`] (which leaves a node unchanged) needs no bounds check.
const SLOTS: usize = 2048;
const MASK: usize = SLOTS - 1;
/// Slots for the links of a grid: at most 32 per candidate (its off node has at most three
/// conjugates and a bivalue partner, its on node 20 peers and 8 other digits).
const EDGES: usize = 32768;
const EDGE_MASK: usize = EDGES - 1;
const _: () = assert!(NODES < SLOTS && NODES / 2 * 32 <= EDGES);

/// The visit index of a node that is no longer on Tarjan's stack: its component is closed, or
/// it has no links out. It is larger than every visit index, so taking the minimum with it
/// changes nothing.
const CLOSED: u16 = u16::MAX - 1;

thread_local! {
    /// The buffers of graph builds on this thread.
    static WORK: RefCell<Work> = RefCell::new(Work::new());
}

/// A fixed-size array of `N` copies of `v`, on the heap.
fn boxed<T: Copy, const N: usize>(v: T) -> Box<[T; N]> {
    vec![v; N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has N elements"))
}

/// The links of a grid as adjacency lists over dense node indexes, and the state of Tarjan's
/// strongly-connected-components algorithm (without recursion) over them. Components come out
/// sinks first, so each component's reachable set is the union of its successors', all done.
///
/// A visited node is on the stack until its component closes, when its index becomes
/// [`CLOSED`]: a successor's index is then the lowest index it can give its predecessor, with
/// no separate "on stack" test.
struct Work {
    /// Dense index of each node ([`NONE`] when its candidate is not in the grid).
    id: Box<[u16; SLOTS]>,
    /// The node of each dense index.
    node: Box<[u16; SLOTS]>,
    /// Number of dense nodes.
    n: usize,
    /// Index in `succ` of each dense node's first successor, and one past the last.
    start: Box<[u32; SLOTS]>,
    succ: Box<[u16; EDGES]>,
    index: Box<[u16; SLOTS]>,
    low: Box<[u16; SLOTS]>,
    comp: Box<[u16; SLOTS]>,
    /// Tarjan's stack, `sp` deep.
    stack: Box<[u16; SLOTS]>,
    sp: usize,
    /// The depth-first path, `pp` deep: each node and the position of its next successor.
    path_node: Box<[u16; SLOTS]>,
    path_at: Box<[u32; SLOTS]>,
    pp: usize,
    next_index: u16,
    comps: usize,
    words: usize,
    reach: Vec<u64>,
    /// The component whose set last took each component's (no union twice).
    merged: Box<[u32; SLOTS]>,
}

impl Work {
    fn new() -> Work {
        Work {
            id: boxed(NONE),
            node: boxed(0),
            n: 0,
            start: boxed(0),
            succ: boxed(0),
            index: boxed(0),
            low: boxed(0),
            comp: boxed(0),
            stack: boxed(0),
            sp: 0,
            path_node: boxed(0),
            path_at: boxed(0),
            pp: 0,
            next_index: 0,
            comps: 0,
            words: 0,
            reach: Vec::new(),
            merged: boxed(0),
        }
    }

    /// The components and reachable sets of `b`'s graph.
    fn build(&mut self, b: &Board, conj: &[[Cells; 81]; 9]) -> Reach {
        self.graph(b, conj);
        self.components();
        // The nodes with no links out stay out of the search: each is its own component.
        let with_sets = self.comps;
        let mut comps = self.comps;
        for m in 0..self.n {
            if self.sink(m) {
                self.comp[m & MASK] = comps as u16;
                comps += 1;
            }
        }
        let n = self.n;
        Reach {
            id: self.id.clone(),
            node: self.node[..n].to_vec(),
            comp: self.comp[..n].to_vec(),
            words: self.words,
            comps,
            with_sets,
            reach: std::mem::take(&mut self.reach),
        }
    }

    /// Builds the graph of `b`: dense indexes in cell, digit order, "off" before "on".
    fn graph(&mut self, b: &Board, conj: &[[Cells; 81]; 9]) {
        // The last graph's nodes leave `id`, so it holds none but this graph's.
        for &m in &self.node[..self.n] {
            self.id[m as usize & MASK] = NONE;
        }
        let mut n = 0;
        for c in cells(b.empty) {
            for d in digits(b.cand[c]) {
                let off = node(c, d, false);
                self.id[off & MASK] = n as u16;
                self.id[(off + 1) & MASK] = n as u16 + 1;
                self.node[n & MASK] = off as u16;
                self.node[(n + 1) & MASK] = off as u16 + 1;
                n += 2;
            }
        }
        self.n = n;
        let (mut k, mut i) = (0usize, 0usize);
        for c in cells(b.empty) {
            let m = b.cand[c];
            let bivalue = two_digits(m);
            for d in digits(m) {
                let dd = d as usize - 1;
                let others = m & !(1 << dd);
                // Off: the digit's conjugates turn on, and a bivalue cell's other candidate.
                self.start[i & MASK] = k as u32;
                i += 1;
                for o in cells(conj[dd][c]) {
                    self.succ[k & EDGE_MASK] = self.id[node(o, d, true) & MASK];
                    k += 1;
                }
                if bivalue {
                    let e = others.trailing_zeros() as u8 + 1;
                    self.succ[k & EDGE_MASK] = self.id[node(c, e, true) & MASK];
                    k += 1;
                }
                // On: the digit's other places in the cell's houses turn off, and the cell's
                // other candidates.
                self.start[i & MASK] = k as u32;
                i += 1;
                for o in cells(PEERS[c] & b.pos[dd]) {
                    self.succ[k & EDGE_MASK] = self.id[node(o, d, false) & MASK];
                    k += 1;
                }
                for e in digits(others) {
                    self.succ[k & EDGE_MASK] = self.id[node(c, e, false) & MASK];
                    k += 1;
                }
            }
        }
        self.start[i & MASK] = k as u32;
        // Every link leads to a candidate of `b` (`conj` must be `b`'s).
        debug_assert!(self.succ[..k].iter().all(|&s| (s as usize) < n));
    }

    /// Whether dense node `m` has no links out.
    #[inline]
    fn sink(&self, m: usize) -> bool {
        self.start[m & MASK] == self.start[(m + 1) & MASK]
    }

    /// Tarjan's algorithm over the graph: `comp` and `reach` for every node with links out.
    fn components(&mut self) {
        let n = self.n;
        // A node with no links out is never visited (it is its own component, numbered after
        // the search).
        for m in 0..n {
            self.index[m & MASK] = if self.sink(m) { CLOSED } else { NONE };
            self.comp[m & MASK] = NONE;
        }
        self.sp = 0;
        self.pp = 0;
        self.next_index = 0;
        self.comps = 0;
        self.words = n.div_ceil(64);
        self.reach = Vec::with_capacity(n * self.words);
        for root in 0..n {
            if self.index[root & MASK] == NONE {
                self.visit(root);
            }
        }
    }

    fn open(&mut self, m: usize) {
        let m = m & MASK;
        self.index[m] = self.next_index;
        self.low[m] = self.next_index;
        self.next_index += 1;
        self.stack[self.sp & MASK] = m as u16;
        self.sp += 1;
        self.path_node[self.pp & MASK] = m as u16;
        self.path_at[self.pp & MASK] = self.start[m];
        self.pp += 1;
    }

    fn visit(&mut self, root: usize) {
        self.open(root);
        while self.pp > 0 {
            let top = (self.pp - 1) & MASK;
            let v = self.path_node[top] as usize & MASK;
            // The successors of the node on top of the path, until one is new.
            let (mut at, end) = (
                self.path_at[top] as usize,
                self.start[(v + 1) & MASK] as usize,
            );
            let mut low = self.low[v];
            let mut new = None;
            while at < end {
                let m = self.succ[at & EDGE_MASK] as usize & MASK;
                at += 1;
                let i = self.index[m];
                if i == NONE {
                    new = Some(m);
                    break;
                }
                low = low.min(i);
            }
            self.low[v] = low;
            if let Some(m) = new {
                self.path_at[top] = at as u32;
                self.open(m);
                continue;
            }
            self.pp -= 1;
            if self.pp > 0 {
                let p = self.path_node[(self.pp - 1) & MASK] as usize & MASK;
                self.low[p] = self.low[p].min(low);
            }
            if low == self.index[v] {
                self.close(v);
            }
        }
    }

    /// Pops the component rooted at `v` and appends its reachable set.
    fn close(&mut self, v: usize) {
        let id = self.comps;
        self.comps += 1;
        let mut from = self.sp;
        loop {
            from -= 1;
            let m = self.stack[from & MASK] as usize & MASK;
            self.index[m] = CLOSED;
            self.comp[m] = id as u16;
            if m == v {
                break;
            }
        }
        self.union_successors(id, from);
        self.sp = from;
    }

    /// The reachable set of component `id` (its nodes are `stack[from..sp]`): its nodes and
    /// the sets of the components its links lead to, all closed before it.
    fn union_successors(&mut self, id: usize, from: usize) {
        let w = self.words;
        self.reach.resize(self.reach.len() + w, 0);
        self.merged[id & MASK] = id as u32;
        let (done, set) = self.reach.split_at_mut(id * w);
        for k in from..self.sp {
            let m = self.stack[k & MASK] as usize;
            set[m / 64] |= 1 << (m % 64);
            let (s0, s1) = (
                self.start[m & MASK] as usize,
                self.start[(m + 1) & MASK] as usize,
            );
            for e in s0..s1 {
                let s = self.succ[e & EDGE_MASK] as usize;
                // Every successor not a sink is closed by now, so has its component.
                let cs = self.comp[s & MASK];
                if cs == NONE {
                    // A node with no links out reaches only itself.
                    set[s / 64] |= 1 << (s % 64);
                    continue;
                }
                let cs = cs as usize;
                if self.merged[cs & MASK] != id as u32 {
                    self.merged[cs & MASK] = id as u32;
                    for (a, o) in set.iter_mut().zip(&done[cs * w..cs * w + w]) {
                        *a |= o;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The links out of node `n` of `b`, from their definition: "off" turns on the digit's
    /// only other place in a house and a bivalue cell's other candidate; "on" turns off the
    /// digit's other places among the cell's peers and the cell's other candidates.
    fn links(b: &Board, n: usize) -> Vec<usize> {
        let (c, d, on) = (n / 18, (n / 2 % 9) as u8 + 1, n % 2 == 1);
        let places = b.pos[d as usize - 1];
        let others = b.cand[c] & !(1 << (d - 1));
        let mut out = Vec::new();
        if on {
            out.extend(cells(PEERS[c] & places).map(|o| node(o, d, false)));
            out.extend(digits(others).map(|e| node(c, e, false)));
        } else {
            for h in HOUSES.iter().filter(|h| *h >> c & 1 == 1) {
                if two(places & h) {
                    out.extend(cells(places & h & !(1 << c)).map(|o| node(o, d, true)));
                }
            }
            if others.count_ones() == 1 {
                out.extend(digits(others).map(|e| node(c, e, true)));
            }
        }
        out
    }

    /// Reachability by a plain search over [`links`], one start at a time: the nodes (dense
    /// indexes of `g`) reached from dense node `from`.
    fn bfs(b: &Board, g: &Work, from: usize) -> Vec<bool> {
        let mut seen = vec![false; g.n];
        let mut queue = vec![from];
        seen[from] = true;
        while let Some(i) = queue.pop() {
            for s in links(b, g.node[i] as usize) {
                let s = g.id[s] as usize;
                if !seen[s] {
                    seen[s] = true;
                    queue.push(s);
                }
            }
        }
        seen
    }

    /// Conjugates kept state after state, along each golden path and from one path to the
    /// next, are those computed afresh.
    #[test]
    fn kept_conjugates_are_fresh_conjugates() {
        use crate::rate::tests::golden_paths;
        let mut kept = Box::new(KeptConjugates::EMPTY);
        let mut states = 0;
        for (_, path) in golden_paths() {
            for (b, _) in &path {
                assert_eq!(kept.of(b), &conjugates(b));
                states += 1;
            }
        }
        assert!(states > 100);
    }

    #[test]
    fn components_and_reach_agree_with_a_search_from_every_node() {
        use crate::rate::tests::golden_state;
        use crate::rate::Technique;
        for t in [
            Technique::ForcingXChain,
            Technique::ForcingChain,
            Technique::Nishio,
        ] {
            let (b, _, _) = golden_state(t);
            let conj = conjugates(&b);
            let mut g = Work::new();
            g.graph(&b, &conj);
            let r = Reach::new(&b);
            let back: Vec<usize> = (0..NODES).filter(|&n| g.id[n] != NONE).collect();
            let all: Vec<Vec<bool>> = (0..g.n).map(|n| bfs(&b, &g, n)).collect();
            let mut linked = 0;
            for (i, &a) in back.iter().enumerate() {
                for (j, &z) in back.iter().enumerate() {
                    assert_eq!(r.reaches(a, z), all[i][j], "{t:?} {a} -> {z}");
                    let both = all[i][j] && all[j][i];
                    assert_eq!(r.same_component(a, z), both, "{t:?} {a} ~ {z}");
                    linked += (both && i != j) as usize;
                }
            }
            assert!(linked > 0, "{t:?}: no two nodes share a component");
            // A node implied by both starts that would make progress (nodes with no links out
            // included, as starts and as targets).
            let mut sinks = 0;
            for (i, &a) in back.iter().enumerate().step_by(5) {
                sinks += g.sink(i) as usize;
                for (j, &z) in back.iter().enumerate().step_by(3) {
                    let plain = (0..g.n).any(|k| all[i][k] && all[j][k] && progress(&b, back[k]));
                    let got = r.implied_by_all(&b, [a, z].into_iter());
                    assert_eq!(got, plain, "{t:?} {a} & {z}");
                }
            }
            assert!(sinks > 0, "{t:?}: no start without links out");
        }
    }
}
