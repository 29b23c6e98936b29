//! Nishio (7.5), multiple (8.0), dynamic (8.5) and dynamic (+) (9.0) forcing chains, plus SE's
//! length increment.
//!
//! One implication run assumes some candidates on or off and follows the consequences in SE's
//! order (all pending "on" nodes before the next "off" node). Multiple chains use the static
//! grid with both link kinds; dynamic chains remove each "off" candidate from a working grid as
//! they go, so later links may rely on earlier eliminations (those become extra parents of the
//! node); Nishio chains are dynamic but without the cell (Y) links; dynamic (+) chains add the
//! eliminations of simple rules on the working grid whenever nothing else is left to follow
//! (see `advanced`). A hint's complexity is the number of distinct nodes among the ancestors
//! of its chain ends.

use super::advanced::{advanced_eliminations, Advanced};
use super::board::{
    bit, cells, digits, houses_of, more_than, single, two, two_digits, Board, Cells, HOUSES,
    HOUSE_PEERS,
};
use super::deadline::expired;
use super::reach::{node, Reach};
use super::scale::{length_increment, Technique};
use super::templates::Templates;
use super::Step;

/// House kinds in SE's order: box, row, column (indexes into [`houses_of`]).
pub(super) const KINDS: [usize; 3] = [2, 0, 1];
const NONE: u32 = u32::MAX;

/// Which forcing-chain rule runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// Nishio: dynamic, X links only, contradictions only.
    Nishio,
    /// Multiple forcing chains: static grid, cells of three or more candidates and regions.
    Multiple,
    /// Dynamic forcing chains.
    Dynamic,
    /// Dynamic forcing chains (+): dynamic, and when a run has nothing left to follow, the
    /// eliminations of simple rules on its working grid become new "off" nodes (`advanced`).
    DynamicPlus,
    /// Nested forcing chains of the given level (2 and up, see `nested`): dynamic (+), and
    /// when the simple rules find nothing, the level's inner chaining rules on the run's
    /// working grid.
    Nested(u8),
}

impl Kind {
    fn dynamic(self) -> bool {
        self != Kind::Multiple
    }
    fn y(self) -> bool {
        self != Kind::Nishio
    }
    pub(super) fn technique(self) -> Technique {
        match self {
            Kind::Nishio => Technique::Nishio,
            Kind::Multiple => Technique::MultipleForcingChain,
            Kind::Dynamic => Technique::DynamicForcingChain,
            Kind::DynamicPlus => Technique::DynamicForcingChainPlus,
            Kind::Nested(_) => Technique::NestedForcingChain,
        }
    }
    /// Base rating in tenths (SE: 9.5 for level 2, then 0.5 more per level).
    fn base(self) -> u16 {
        match self {
            Kind::Nested(level) => self.technique().base() + 5 * (level as u16 - 2),
            _ => self.technique().base(),
        }
    }
    /// Whether runs use the simple rules on their working grid when they stall.
    fn plus(self) -> bool {
        matches!(self, Kind::DynamicPlus | Kind::Nested(_))
    }
}

#[derive(Clone, Copy)]
struct Node {
    /// cell * 9 + digit - 1
    cd: u16,
    on: bool,
    pstart: u32,
    plen: u32,
    /// Ancestor count once computed (0: not yet).
    anc: u32,
}

/// The result of one implication run: which candidates were implied on and off (node index
/// per candidate, in insertion order), and the contradiction if one was reached.
#[derive(Clone)]
struct Outcome {
    on: Vec<u32>,
    off: Vec<u32>,
    on_map: Vec<u32>,
    off_map: Vec<u32>,
    /// The candidates of `on` and `off` as bit sets (by `cd`), to intersect runs in a few
    /// words before looking any node up.
    on_bits: Bits,
    off_bits: Bits,
    absurd: Option<(u32, u32)>,
}

/// A set of candidates, one bit per `cell * 9 + digit - 1`.
type Bits = [u64; 12];

/// Whether candidate `cd` is in `bits`.
#[inline]
fn has(bits: &Bits, cd: u16) -> bool {
    bits[cd as usize / 64] >> (cd % 64) & 1 != 0
}

/// Intersects `into` with `bits`; whether anything is left.
#[inline]
fn intersect(into: &mut Bits, bits: &Bits) -> bool {
    let mut any = 0;
    for (a, b) in into.iter_mut().zip(bits) {
        *a &= b;
        any |= *a;
    }
    any != 0
}

impl Outcome {
    fn new() -> Outcome {
        Outcome {
            on: Vec::new(),
            off: Vec::new(),
            on_map: vec![NONE; 729],
            off_map: vec![NONE; 729],
            on_bits: [0; 12],
            off_bits: [0; 12],
            absurd: None,
        }
    }

    /// The candidates implied in state `on`.
    #[inline]
    fn bits(&self, on: bool) -> &Bits {
        if on {
            &self.on_bits
        } else {
            &self.off_bits
        }
    }

    /// The node of candidate `cd` in state `on`, or [`NONE`].
    #[inline]
    fn node(&self, cd: u16, on: bool) -> u32 {
        if on {
            self.on_map[cd as usize]
        } else {
            self.off_map[cd as usize]
        }
    }

    /// Records node `ni`, candidate `cd`, as implied on.
    #[inline]
    fn push_on(&mut self, cd: u16, ni: u32) {
        self.on_map[cd as usize] = ni;
        self.on_bits[cd as usize / 64] |= 1 << (cd % 64);
        self.on.push(ni);
    }

    /// Records node `ni`, candidate `cd`, as implied off.
    #[inline]
    fn push_off(&mut self, cd: u16, ni: u32) {
        self.off_map[cd as usize] = ni;
        self.off_bits[cd as usize / 64] |= 1 << (cd % 64);
        self.off.push(ni);
    }
    /// Empties the outcome; `nodes` must still hold the nodes it lists.
    fn reset(&mut self, nodes: &[Node]) {
        for &i in &self.on {
            self.on_map[nodes[i as usize].cd as usize] = NONE;
        }
        for &i in &self.off {
            self.off_map[nodes[i as usize].cd as usize] = NONE;
        }
        self.on.clear();
        self.off.clear();
        self.on_bits = [0; 12];
        self.off_bits = [0; 12];
        self.absurd = None;
    }
}

/// Node storage shared by the runs of one search.
struct Pool {
    nodes: Vec<Node>,
    parents: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    tmp_parents: Vec<u32>,
    /// The advanced rules' eliminations (dynamic forcing chains (+)).
    adv: Advanced,
    /// The nested level's inner rule, for a [`Kind::Nested`] search.
    inner: Option<InnerRule>,
    /// The nodes that stand for a nested chain's elimination, by increasing node: the node,
    /// the chain's identity and its complexity.
    nested: Vec<(u32, u64, u32)>,
    /// Identities of the nested chains met by one complexity count.
    met: Vec<u64>,
    /// Candidates already listed as rule parents of one hint (stamped with `pstamp`).
    pseen: Vec<u32>,
    pstamp: u32,
}

/// Appends to `out` the rule parents of one "on" node `cd` forced by `cause` (a house,
/// [`CELL_HINT`] or more for its cell, [`NO_HOUSE`] for none), each candidate once per
/// `pstamp` (marked in `pseen`).
fn push_cause(
    pseen: &mut [u32],
    pstamp: u32,
    real: &Board,
    grid: &Board,
    cd: u16,
    cause: u8,
    out: &mut Vec<u16>,
) {
    let (c, d) = (cd as usize / 9, (cd % 9) as u8 + 1);
    if cause == NO_HOUSE {
        return;
    }
    let mut push = |x: usize| {
        if pseen[x] != pstamp {
            pseen[x] = pstamp;
            out.push(x as u16);
        }
    };
    if cause >= CELL_HINT {
        for e in digits(real.cand[c] & !grid.cand[c]) {
            push(c * 9 + e as usize - 1);
        }
    } else {
        let gone = real.pos[d as usize - 1] & !grid.pos[d as usize - 1] & HOUSES[cause as usize];
        for gc in cells(gone) {
            push(gc * 9 + d as usize - 1);
        }
    }
}

/// Calls `visit(index, node, key)` once for every distinct candidate-with-state (`key`:
/// candidate * 2 + on) among the ancestors of node `root`, the root included, depth first,
/// marking them in `seen` with `stamp`: the walk shared by the ancestor count, the nested
/// complexity and the rule parents.
fn walk_ancestors(
    nodes: &[Node],
    parents: &[u32],
    seen: &mut [u32],
    stamp: u32,
    stack: &mut Vec<u32>,
    root: u32,
    mut visit: impl FnMut(u32, &Node, usize),
) {
    stack.clear();
    stack.push(root);
    while let Some(i) = stack.pop() {
        let node = &nodes[i as usize];
        let key = node.cd as usize * 2 + node.on as usize;
        if seen[key] == stamp {
            continue;
        }
        seen[key] = stamp;
        visit(i, node, key);
        for k in 0..node.plen {
            stack.push(parents[(node.pstart + k) as usize]);
        }
    }
}

impl Pool {
    fn new() -> Pool {
        Pool {
            nodes: Vec::with_capacity(8192),
            parents: Vec::with_capacity(16384),
            seen: vec![0; 1458],
            stamp: 0,
            stack: Vec::new(),
            tmp_parents: Vec::new(),
            adv: Advanced::default(),
            inner: None,
            nested: Vec::new(),
            met: Vec::new(),
            pseen: vec![0; 729],
            pstamp: 0,
        }
    }

    fn clear(&mut self) {
        self.nodes.clear();
        self.parents.clear();
        self.nested.clear();
    }

    /// The complexity of a hint whose chains end at `roots`: the ancestor counts (`flat`,
    /// their sum) plus, once per distinct nested chain among their ancestors, its complexity.
    fn complexity(&mut self, roots: &[u32], flat: usize) -> usize {
        if self.nested.is_empty() {
            return flat;
        }
        self.met.clear();
        let mut extra = 0;
        for &root in roots {
            self.next_stamp();
            let (nested, met) = (&self.nested, &mut self.met);
            let (nodes, parents) = (&self.nodes, &self.parents);
            walk_ancestors(
                nodes,
                parents,
                &mut self.seen,
                self.stamp,
                &mut self.stack,
                root,
                |i, _, _| {
                    if let Ok(k) = nested.binary_search_by_key(&i, |e| e.0) {
                        let (_, hash, cx) = nested[k];
                        if !met.contains(&hash) {
                            met.push(hash);
                            extra += cx as usize;
                        }
                    }
                },
            );
        }
        flat + extra
    }

    /// Appends to `out` the rule parents of a hint whose chains end at `roots` and start from
    /// `source` (see [`Hit`]), found on `grid`, a working grid of a run that started from
    /// `real`: for each "on" node among the ancestors, the candidates the run removed from its
    /// cell (cell link) or from the house of the link (house link), as SE's nested rules
    /// collect them. Returns an identity of the hint's chains.
    fn rule_parents(
        &mut self,
        real: &Board,
        grid: &Board,
        roots: &[u32],
        source: u8,
        out: &mut Vec<u16>,
    ) -> u64 {
        if self.pstamp == u32::MAX {
            self.pseen.fill(0);
            self.pstamp = 0;
        }
        self.pstamp += 1;
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for &root in roots {
            self.next_stamp();
            hash = (hash ^ 0xffff).wrapping_mul(0x100_0000_01b3);
            let (nodes, parents) = (&self.nodes, &self.parents);
            let (pseen, pstamp) = (&mut self.pseen, self.pstamp);
            walk_ancestors(
                nodes,
                parents,
                &mut self.seen,
                self.stamp,
                &mut self.stack,
                root,
                |_, node, key| {
                    hash = (hash ^ key as u64).wrapping_mul(0x100_0000_01b3);
                    if node.on {
                        let cause = if node.plen == 0 {
                            source
                        } else {
                            link_house(
                                grid,
                                &nodes[parents[node.pstart as usize] as usize],
                                node.cd,
                            )
                        };
                        push_cause(pseen, pstamp, real, grid, node.cd, cause, out);
                    }
                },
            );
        }
        hash
    }

    /// The nodes `root` rests on, itself included, in the order the run found them (so each
    /// follows from nodes before it), as (cell, digit, on).
    fn implications(&mut self, root: u32) -> Vec<(u8, u8, bool)> {
        self.next_stamp();
        let mut found = Vec::new();
        walk_ancestors(
            &self.nodes,
            &self.parents,
            &mut self.seen,
            self.stamp,
            &mut self.stack,
            root,
            |i, _, _| found.push(i),
        );
        found.sort_unstable();
        found
            .into_iter()
            .map(|i| {
                let node = &self.nodes[i as usize];
                ((node.cd / 9) as u8, (node.cd % 9) as u8 + 1, node.on)
            })
            .collect()
    }

    fn next_stamp(&mut self) {
        if self.stamp == u32::MAX {
            self.seen.fill(0);
            self.stamp = 0;
        }
        self.stamp += 1;
    }

    fn add(&mut self, cd: u16, on: bool, parents: &[u32]) -> u32 {
        let pstart = self.parents.len();
        self.parents.extend_from_slice(parents);
        self.add_with_parents(cd, on, pstart)
    }

    /// Adds a node whose parents are `parents[pstart..]`, already pushed.
    fn add_with_parents(&mut self, cd: u16, on: bool, pstart: usize) -> u32 {
        self.nodes.push(Node {
            cd,
            on,
            pstart: pstart as u32,
            plen: (self.parents.len() - pstart) as u32,
            anc: 0,
        });
        self.nodes.len() as u32 - 1
    }

    /// Adds a node whose one parent is `parent`.
    fn add_child(&mut self, cd: u16, on: bool, parent: u32) -> u32 {
        let pstart = self.parents.len();
        self.parents.push(parent);
        self.add_with_parents(cd, on, pstart)
    }

    /// Distinct candidates-with-state among the ancestors of `root` (itself counted too),
    /// remembered per node; callers sum it per root as SE does (each root's ancestry counted
    /// separately).
    fn ancestors(&mut self, root: u32) -> usize {
        let known = self.nodes[root as usize].anc;
        if known != 0 {
            return known as usize;
        }
        self.next_stamp();
        let mut n = 0;
        let (nodes, parents) = (&self.nodes, &self.parents);
        walk_ancestors(
            nodes,
            parents,
            &mut self.seen,
            self.stamp,
            &mut self.stack,
            root,
            |_, _, _| n += 1,
        );
        self.nodes[root as usize].anc = n as u32;
        n
    }

    /// Runs the implications of `start` (already added nodes, recorded in `out`) on `grid`.
    /// The pending nodes are the tails of `out.on` and `out.off` (a run only appends to them,
    /// in the order it follows them).
    fn run(&mut self, real: &Board, kind: Kind, out: &mut Outcome) {
        let mut grid = real.clone();
        let (mut next_on, mut next_off) = (0, 0);
        loop {
            let absurd = if let Some(&pi) = out.on.get(next_on) {
                next_on += 1;
                self.follow_on(&grid, kind, pi, out)
            } else if let Some(&pi) = out.off.get(next_off) {
                next_off += 1;
                self.follow_off(real, &mut grid, kind, pi, out)
            } else if kind.plus() && self.push_advanced(real, &grid, kind, out) {
                false
            } else {
                return;
            };
            if absurd {
                return;
            }
        }
    }

    /// Adds as pending "off" nodes the eliminations of the advanced rules on `grid` (the run
    /// started from `real`) not yet off, each with the hint's parents; false when none.
    fn push_advanced(&mut self, real: &Board, grid: &Board, kind: Kind, out: &mut Outcome) -> bool {
        let mut adv = std::mem::take(&mut self.adv);
        advanced_eliminations(real, grid, &mut adv);
        if let (Kind::Nested(level), Some(inner)) = (kind, self.inner) {
            if adv.elims.is_empty() && !expired() {
                inner(real, grid, level, &mut adv);
            }
        }
        let mut tp = std::mem::take(&mut self.tmp_parents);
        let before = out.off.len();
        for (k, &(q, start, end)) in adv.elims.iter().enumerate() {
            if has(&out.off_bits, q) {
                continue;
            }
            tp.clear();
            for &p in &adv.parents[start as usize..end as usize] {
                debug_assert!(out.off_map[p as usize] != NONE);
                tp.push(out.off_map[p as usize]);
            }
            let ni = self.add(q, false, &tp);
            out.push_off(q, ni);
            let chain = adv.nest[k];
            if chain != NONE {
                let (hash, cx) = adv.chains[chain as usize];
                self.nested.push((ni, hash, cx));
            }
        }
        self.tmp_parents = tp;
        self.adv = adv;
        out.off.len() > before
    }

    /// Turns off what the "on" node `pi` excludes on `grid`; true when that contradicts an
    /// "on" node (recorded in `out.absurd`).
    fn follow_on(&mut self, grid: &Board, kind: Kind, pi: u32, out: &mut Outcome) -> bool {
        let p = self.nodes[pi as usize];
        let mut offs = [0; 32];
        let n = on_consequences(grid, kind.y(), p.cd, &mut offs);
        for &q in &offs[..n] {
            // Membership from the bit sets: a run's 3 KB maps are often out of cache.
            if has(&out.on_bits, q) {
                let off = self.add_child(q, false, pi);
                out.absurd = Some((out.on_map[q as usize], off));
                return true;
            }
            if !has(&out.off_bits, q) {
                let ni = self.add_child(q, false, pi);
                out.push_off(q, ni);
            }
        }
        false
    }

    /// Turns on what the "off" node `pi` forces on `grid`, then (dynamic runs) removes its
    /// candidate from `grid`; true when that contradicts an "off" node (in `out.absurd`).
    fn follow_off(
        &mut self,
        real: &Board,
        grid: &mut Board,
        kind: Kind,
        pi: u32,
        out: &mut Outcome,
    ) -> bool {
        let p = self.nodes[pi as usize];
        let (c, d) = (p.cd as usize / 9, (p.cd % 9) as u8 + 1);
        let mut ons = [(0, 0); 4];
        let n = off_consequences(grid, kind.y(), p.cd, &mut ons);
        for &(q, via) in &ons[..n] {
            let absurd = has(&out.off_bits, q);
            if !absurd && has(&out.on_bits, q) {
                continue;
            }
            // Parents: p plus, in dynamic runs, the eliminations that made the link.
            let pstart = self.parents.len();
            self.parents.push(pi);
            if kind.dynamic() {
                push_link_parents(&mut self.parents, real, grid, out, q, via, c, d);
            }
            let ni = self.add_with_parents(q, true, pstart);
            if absurd {
                out.absurd = Some((ni, out.off_map[q as usize]));
                return true;
            }
            out.push_on(q, ni);
        }
        if kind.dynamic() {
            grid.eliminate(c, d);
        }
        false
    }
}

/// The link from the "off" node `p` to the "on" candidate `q` on `grid`: [`CELL_HINT`] for
/// their cell, else the first house (box, row, column) holding both where the digit has two
/// places (the first holding both when the run removed more).
fn link_house(grid: &Board, p: &Node, q: u16) -> u8 {
    let (pc, qc, d) = (p.cd as usize / 9, q as usize / 9, (q % 9) as usize);
    if pc == qc {
        return CELL_HINT;
    }
    let hs = houses_of(pc);
    let both = KINDS
        .map(|k| hs[k])
        .into_iter()
        .filter(|&h| HOUSES[h] >> qc & 1 == 1);
    let mut first = NO_HOUSE;
    for h in both {
        if first == NO_HOUSE {
            first = h as u8;
        }
        if two(grid.pos[d] & HOUSES[h]) {
            return h as u8;
        }
    }
    first
}

/// The candidates that candidate `cd` being on turns off on `grid`, in SE's order: the cell's
/// other candidates (with Y links), then the digit's other places in box, row and column.
/// Written into `offs` (the caller's, so no array is copied out: rebuilding one from its
/// 16-bit stores stalls the loads), returning how many.
#[inline(always)]
pub(super) fn on_consequences(grid: &Board, y: bool, cd: u16, offs: &mut [u16; 32]) -> usize {
    let (c, d) = (cd as usize / 9, (cd % 9) as u8 + 1);
    let mut n = 0;
    if y {
        for e in digits(grid.cand[c]) {
            if e != d {
                offs[n] = (c * 9 + e as usize - 1) as u16;
                n += 1;
            }
        }
    }
    let mut seen = 0u128;
    let places = grid.pos[d as usize - 1];
    for house in &HOUSE_PEERS[c] {
        let o = places & house & !seen;
        seen |= o;
        for oc in cells(o) {
            offs[n] = (oc * 9 + d as usize - 1) as u16;
            n += 1;
        }
    }
    n
}

/// The candidates that candidate `cd` being off turns on on `grid`, each with the link that
/// does it (an index into [`KINDS`] for a house, 3 for the bivalue cell), in SE's order: the
/// cell's other candidate (with Y links), then the digit's other place in box, row, column.
/// Written into `ons` as [`on_consequences`] does, returning how many.
#[inline(always)]
pub(super) fn off_consequences(grid: &Board, y: bool, cd: u16, ons: &mut [(u16, u8); 4]) -> usize {
    let (c, d) = (cd as usize / 9, (cd % 9) as u8 + 1);
    let mut n = 0;
    if y && two_digits(grid.cand[c]) {
        let e = (grid.cand[c] & !bit(d)).trailing_zeros() as usize;
        ons[n] = ((c * 9 + e) as u16, 3);
        n += 1;
    }
    // The digit's other places that `c` sees; a house where one is left links to it (once,
    // though it may share two houses with `c`).
    let places = grid.pos[d as usize - 1];
    let mut linked: Cells = 0;
    for (ki, house) in HOUSE_PEERS[c].iter().enumerate() {
        let o = places & house;
        if single(o) && o & linked == 0 {
            linked |= o;
            ons[n] = (
                (o.trailing_zeros() as usize * 9 + d as usize - 1) as u16,
                ki as u8,
            );
            n += 1;
        }
    }
    n
}

/// Appends to `parents` the "off" nodes of `out` behind the eliminations (from `real` to
/// `grid`) that the link `via` (as in [`off_consequences`]) from cell `c`, digit `d`, to `q`
/// relied on: the cell's other removed candidates, or the digit's removed places in the house.
#[allow(clippy::too_many_arguments)]
fn push_link_parents(
    parents: &mut Vec<u32>,
    real: &Board,
    grid: &Board,
    out: &Outcome,
    q: u16,
    via: u8,
    c: usize,
    d: u8,
) {
    let qc = q as usize / 9;
    if via == 3 {
        let gone = real.cand[qc] & !grid.cand[qc];
        for e in digits(gone) {
            parents.push(out.off_map[qc * 9 + e as usize - 1]);
        }
    } else {
        let h = houses_of(c)[KINDS[via as usize]];
        let gone = real.pos[d as usize - 1] & !grid.pos[d as usize - 1] & HOUSES[h];
        for gc in cells(gone) {
            parents.push(out.off_map[gc * 9 + d as usize - 1]);
        }
    }
}

/// The "on" run of each candidate, computed once per search: a candidate's run serves its own
/// cell and every region it shares with a candidate processed earlier.
struct Runs {
    /// Index into `outs` of each candidate's run, or [`NONE`].
    idx: Vec<u32>,
    /// The runs (the first `used` are this search's; the rest are kept empty for reuse).
    outs: Vec<Outcome>,
    used: usize,
}

impl Runs {
    fn new() -> Runs {
        Runs {
            idx: vec![NONE; 729],
            outs: Vec::new(),
            used: 0,
        }
    }

    /// Forgets every run; `nodes` must still hold their nodes.
    fn reset(&mut self, nodes: &[Node]) {
        for out in &mut self.outs[..self.used] {
            self.idx[nodes[out.on[0] as usize].cd as usize] = NONE;
            out.reset(nodes);
        }
        self.used = 0;
    }

    /// The index of the run from candidate `cd` assumed on, running it the first time.
    fn on(&mut self, pool: &mut Pool, b: &Board, kind: Kind, cd: u16) -> usize {
        let known = self.idx[cd as usize];
        if known != NONE {
            return known as usize;
        }
        let i = self.used;
        if i == self.outs.len() {
            self.outs.push(Outcome::new());
        }
        self.used += 1;
        let out = &mut self.outs[i];
        let ni = pool.add(cd, true, &[]);
        out.push_on(cd, ni);
        pool.run(b, kind, out);
        self.idx[cd as usize] = i as u32;
        i
    }
}

type Key = (u16, usize, u8, u32);

struct Best {
    key: Key,
    step: Option<Step>,
    seq: u32,
    /// Whether every hint is kept (in `hits`), as the nested levels' inner rules need.
    collect: bool,
    hits: Vec<Hit>,
    /// The chain ends of the hits.
    roots: Vec<u32>,
    /// Whether the best hint's chain ends are kept (in `proof`), to explain it.
    explain: bool,
    /// The chain ends of the best hint, when `explain`.
    proof: Vec<u32>,
}

/// One hint of a collecting search.
#[derive(Clone, Copy)]
struct Hit {
    key: Key,
    /// The cell and the digits the hint removes there.
    cell: u8,
    elims: u16,
    /// The house of a region hint, the cell of a cell hint ([`CELL_HINT`] + cell), or
    /// [`NO_HOUSE`].
    source: u8,
    rstart: u32,
    rend: u32,
}

const NO_HOUSE: u8 = u8::MAX;
const CELL_HINT: u8 = 27;

impl Best {
    fn new(collect: bool) -> Best {
        Best {
            key: (u16::MAX, 0, 0, 0),
            step: None,
            seq: 0,
            collect,
            hits: Vec::new(),
            roots: Vec::new(),
            explain: false,
            proof: Vec::new(),
        }
    }
    /// The complexity above which no hint can come before the best so far (its rating grows
    /// with its complexity): none for a collecting search, which keeps every hint.
    fn limit(&self) -> usize {
        match &self.step {
            Some(_) if !self.collect => self.key.1,
            _ => usize::MAX,
        }
    }
    /// Whether a hint with this rating, complexity and kind would come before the best so far.
    fn beats(&self, rating: u16, n: usize, sort: u8) -> bool {
        self.step.is_none() || (rating, n, sort) < (self.key.0, self.key.1, self.key.2)
    }
    /// Keeps a hint of a collecting search: target `cd` (on or off), ending at `roots`.
    #[allow(clippy::too_many_arguments)]
    fn hit(
        &mut self,
        b: &Board,
        (rating, n, sort): (u16, usize, u8),
        cd: u16,
        on: bool,
        source: u8,
        roots: &[u32],
    ) {
        let c = cd as usize / 9;
        let elims = target_elims(b, cd, on);
        let key = (rating, n, sort, self.seq);
        self.seq += 1;
        if elims != 0 {
            let rstart = self.roots.len() as u32;
            self.roots.extend_from_slice(roots);
            self.hits.push(Hit {
                key,
                cell: c as u8,
                elims,
                source,
                rstart,
                rend: self.roots.len() as u32,
            });
        }
    }
    /// Keeps the hint (built by `make`, its chains ending at `roots`) if it comes before the
    /// best so far.
    fn offer(
        &mut self,
        rating: u16,
        n: usize,
        sort: u8,
        roots: &[u32],
        make: impl FnOnce() -> Step,
    ) {
        let key = (rating, n, sort, self.seq);
        self.seq += 1;
        if self.step.is_none() || key < self.key {
            self.key = key;
            self.step = Some(make());
            if self.explain {
                self.proof.clear();
                self.proof.extend_from_slice(roots);
            }
        }
    }
}

/// The places of digit `d` in each house of `c`, by index into [`KINDS`], where `c` is the
/// first of two or more places (0 elsewhere): the regions whose hints `c` offers.
pub(super) fn region_places(b: &Board, c: usize, d: u8) -> [Cells; 3] {
    let hs = houses_of(c);
    KINDS.map(|k| {
        let p = b.pos[d as usize - 1] & HOUSES[hs[k]];
        if more_than(p, 1) && p.trailing_zeros() as usize == c {
            p
        } else {
            0
        }
    })
}

/// The step of a hint of rule `kind` rated `rating` on candidate `cd` (proved on, or off), or
/// `None` when it makes no progress (see [`target_elims`]). A candidate proved on is placed, as
/// SE applies such a hint (its other candidates go, and the digit leaves the cell's peers).
pub(super) fn target_step(b: &Board, kind: Kind, rating: u16, cd: u16, on: bool) -> Option<Step> {
    let elims = target_elims(b, cd, on);
    (elims != 0).then(|| {
        let (c, d) = (cd as usize / 9, (cd % 9) as u8 + 1);
        let mut s = if on {
            Step::place(kind.technique(), c, d, 1 << c)
        } else {
            Step::eliminate(kind.technique(), d, 1 << c, 1 << c)
        };
        s.rating = rating;
        s
    })
}

/// The digits a hint on candidate `cd` (proved on, or off) removes from its cell: its other
/// candidates, or the digit itself while it is still there (0: the hint makes no progress).
fn target_elims(b: &Board, cd: u16, on: bool) -> u16 {
    let (c, d) = (cd as usize / 9, (cd % 9) as u8 + 1);
    if on {
        b.cand[c] & !bit(d)
    } else if b.has(c, d) {
        bit(d)
    } else {
        0
    }
}

/// Offers the hint on candidate `cd` (proved on, or off) when it makes progress; its step is
/// built only if it becomes the best.
fn offer_target(
    b: &Board,
    kind: Kind,
    (rating, n, sort): (u16, usize, u8),
    (cd, on): (u16, bool),
    roots: &[u32],
    best: &mut Best,
) {
    if target_elims(b, cd, on) == 0 {
        return;
    }
    best.offer(rating, n, sort, roots, || {
        target_step(b, kind, rating, cd, on).expect("a hint that makes progress")
    });
}

/// The complexity of a hint whose chains end at `roots` (`flat`: their ancestor counts), with
/// its nested chains counted only when it could still be the best hint.
fn full_complexity(
    pool: &mut Pool,
    best: &Best,
    base: u16,
    roots: &[u32],
    flat: usize,
    sort: u8,
) -> usize {
    if pool.nested.is_empty() || !best.beats(base + length_increment(flat), flat, sort) {
        flat
    } else {
        pool.complexity(roots, flat)
    }
}

/// The eliminations a nested level's inner rule adds to a stalled run: `(real, grid, level,
/// out)`, as `nested` supplies it (so this module does not depend on it).
pub(super) type InnerRule = fn(&Board, &Board, u8, &mut Advanced);

/// The easiest hint of nested level `level`, whose stalled runs call `inner`; with its proof
/// when `explain` (as [`forcing_chains_explained`]).
pub(super) fn nested_chains(b: &Board, level: u8, inner: InnerRule, explain: bool) -> Option<Step> {
    SEARCH.with_borrow_mut(|s| s.pool.inner = Some(inner));
    let kind = Kind::Nested(level);
    let step = search_with(b, kind, &Chains::new(b, kind), explain);
    SEARCH.with_borrow_mut(|s| s.pool.inner = None);
    step
}

/// The easiest hint of the forcing-chain rule `kind`, as SE sorts them (rating, complexity,
/// then double-implication, cell, region and contradiction hints, then discovery order).
pub fn forcing_chains(b: &Board, kind: Kind) -> Option<Step> {
    search_with(b, kind, &Chains::new(b, kind), false)
}

/// [`forcing_chains`], with what proves the step ([`Step::chains`], and their cells in
/// [`Step::cells`]): for each chain end of the hint, the implications it rests on, in the
/// order they were found, from the assumption to the end. For explanations, where the search
/// runs again on the board the step was found on (the rating path keeps no proof).
pub fn forcing_chains_explained(b: &Board, kind: Kind) -> Option<Step> {
    search_with(b, kind, &Chains::new(b, kind), true)
}

/// [`forcing_chains`] over the cells and regions `chains` lets through.
fn search_with(b: &Board, kind: Kind, chains: &Chains, explain: bool) -> Option<Step> {
    SEARCH.with_borrow_mut(|s| {
        s.reset();
        let Search {
            pool,
            runs,
            off_out,
        } = s;
        let mut best = Best::new(false);
        best.explain = explain;
        search(b, kind, chains, pool, runs, off_out, &mut best);
        let proof = std::mem::take(&mut best.proof);
        best.step.map(|mut s| {
            s.eliminations.sort_unstable();
            if !proof.is_empty() {
                s.set_chains(proof.iter().map(|&root| pool.implications(root)).collect());
            }
            s
        })
    })
}

/// The buffers of a search, kept per thread from one search to the next.
struct Search {
    pool: Pool,
    runs: Runs,
    off_out: Outcome,
}

impl Search {
    /// Forgets the previous search's runs and nodes.
    fn reset(&mut self) {
        self.runs.reset(&self.pool.nodes);
        self.off_out.reset(&self.pool.nodes);
        self.pool.clear();
    }
}

thread_local! {
    static SEARCH: std::cell::RefCell<Search> = std::cell::RefCell::new(Search {
        pool: Pool::new(),
        runs: Runs::new(),
        off_out: Outcome::new(),
    });
}

/// Which cells, regions and runs can offer a hint. Multiple forcing chains follow the static
/// links only, so a cell or a region whose candidates imply nothing in common in the static
/// graph offers none. Nishio chains follow one digit's house rules only, so a candidate's
/// "on" run can end in a contradiction only when no template of its digit uses it, and its
/// "off" run only when every template does. The skipped runs are not run: the runs and
/// offers of the others do not depend on them.
enum Chains {
    /// Every cell, region and run.
    All,
    /// Multiple forcing chains: the static graph's reachable sets decide.
    Static(std::rc::Rc<Reach>),
    /// Nishio chains: the digits' templates decide.
    Templates(Box<Templates>),
}

impl Chains {
    fn new(b: &Board, kind: Kind) -> Chains {
        match kind {
            Kind::Multiple => Chains::Static(Reach::shared(b, None)),
            Kind::Nishio => Chains::Templates(Box::new(Templates::new(b))),
            _ => Chains::All,
        }
    }

    /// Whether cell `c`'s candidates may imply something in common.
    fn cell(&self, b: &Board, c: usize) -> bool {
        match self {
            Chains::Static(r) => r.implied_by_all(b, digits(b.cand[c]).map(|d| node(c, d, true))),
            _ => true,
        }
    }

    /// The houses (bits by index into [`KINDS`]) where `c` is the first place of `d` and the
    /// places may imply something in common.
    fn regions(&self, b: &Board, c: usize, d: u8) -> u8 {
        let mut out = 0;
        for (ki, p) in region_places(b, c, d).into_iter().enumerate() {
            if p == 0 {
                continue;
            }
            let ok = match self {
                Chains::Static(r) => r.implied_by_all(b, cells(p).map(|o| node(o, d, true))),
                _ => true,
            };
            out |= (ok as u8) << ki;
        }
        out
    }

    /// Whether the run of candidate `d` in `c` assumed on (`on`) or off may contradict itself.
    fn may_contradict(&self, c: usize, d: u8, on: bool) -> bool {
        match self {
            Chains::Templates(t) if on => !t.some_uses(c, d),
            Chains::Templates(t) => t.every_uses(c, d),
            _ => true,
        }
    }
}

/// Buffers of the nested levels' inner chaining rules (a search of its own: it runs inside
/// the outer search's implication runs).
struct InnerSearch {
    search: Search,
    hits: Vec<Hit>,
    roots: Vec<u32>,
    done: std::collections::HashSet<(u8, u16)>,
}

thread_local! {
    static INNER: std::cell::RefCell<InnerSearch> = std::cell::RefCell::new(InnerSearch {
        search: Search {
            pool: Pool::new(),
            runs: Runs::new(),
            off_out: Outcome::new(),
        },
        hits: Vec::new(),
        roots: Vec::new(),
        done: std::collections::HashSet::new(),
    });
}

/// Adds to `acc` the eliminations of every hint of the rule `kind` (multiple, dynamic or
/// nested forcing chains; a nested rule's stalled runs call `inner`) on `grid`, a working grid
/// of a run that started from `real`, in SE's order (rating, complexity, kind, discovery), each
/// with its rule parents and as a nested chain; a hint without parents, or removing what an
/// earlier hint removes, adds nothing.
pub(super) fn inner_chains(
    real: &Board,
    grid: &Board,
    kind: Kind,
    inner: Option<InnerRule>,
    acc: &mut Advanced,
) {
    INNER.with_borrow_mut(|st| {
        st.search.reset();
        st.search.pool.inner = inner;
        let InnerSearch {
            search:
                Search {
                    pool,
                    runs,
                    off_out,
                },
            hits,
            roots,
            done,
        } = st;
        let mut best = Best::new(true);
        best.hits = std::mem::take(hits);
        best.roots = std::mem::take(roots);
        best.hits.clear();
        best.roots.clear();
        let chains = Chains::new(grid, kind);
        if search(grid, kind, &chains, pool, runs, off_out, &mut best) {
            best.hits.sort_unstable_by_key(|h| h.key);
            done.clear();
            for h in &best.hits {
                if !done.insert((h.cell, h.elims)) {
                    continue;
                }
                let ps = acc.parents.len() as u32;
                let rs = &best.roots[h.rstart as usize..h.rend as usize];
                let hash = pool.rule_parents(real, grid, rs, h.source, &mut acc.parents);
                let pe = acc.parents.len() as u32;
                if pe == ps {
                    continue;
                }
                let ci = acc.chains.len() as u32;
                acc.chains.push((hash, h.key.1 as u32));
                for e in digits(h.elims) {
                    acc.elims
                        .push(((h.cell as usize * 9 + e as usize - 1) as u16, ps, pe));
                    acc.nest.push(ci);
                }
            }
        }
        *hits = best.hits;
        *roots = best.roots;
    })
}

/// Offers every hint of the rule `kind` on `b` to `best`; stops early (returning false) when a
/// nested search's deadline passes.
fn search(
    b: &Board,
    kind: Kind,
    chains: &Chains,
    pool: &mut Pool,
    runs: &mut Runs,
    off_out: &mut Outcome,
    best: &mut Best,
) -> bool {
    let nested = best.collect || matches!(kind, Kind::Nested(_));
    for c in cells(b.empty) {
        if nested && expired() {
            best.step = None;
            return false;
        }
        let card = b.cand[c].count_ones();
        if !(card > 2 || (card > 1 && kind.dynamic())) {
            continue;
        }
        let cell_ok = chains.cell(b, c);
        let mut on_idx = [0usize; 9];
        for (vi, d) in digits(b.cand[c]).enumerate() {
            let regions = chains.regions(b, c, d);
            if !cell_ok && regions == 0 {
                continue;
            }
            let cd = (c * 9 + d as usize - 1) as u16;
            if kind == Kind::Nishio {
                nishio(b, (chains, pool, runs, off_out), c, d, best);
                continue;
            }
            let oi = runs.on(pool, b, kind, cd);
            on_idx[vi] = oi;
            if kind.dynamic() {
                let absurd = runs.outs[oi].absurd;
                offer_contradiction(b, kind, pool, absurd, cd, false, best);
                let absurd = run_off(b, kind, pool, off_out, cd);
                offer_contradiction(b, kind, pool, absurd, cd, true, best);
                if matches!(kind, Kind::Dynamic | Kind::DynamicPlus | Kind::Nested(_)) && card >= 3
                {
                    double_implications(b, kind, pool, &runs.outs[oi], off_out, best);
                }
            }
            region_chains(b, kind, (c, d, regions), oi, pool, runs, best);
        }
        if kind != Kind::Nishio && cell_ok {
            cell_chains(b, kind, &on_idx[..card as usize], pool, runs, best);
        }
    }
    true
}

/// Nishio contradictions of the candidate `d` in `c`: assumed on, then off (only the runs
/// `chains` lets through).
fn nishio(
    b: &Board,
    (chains, pool, runs, off_out): (&Chains, &mut Pool, &mut Runs, &mut Outcome),
    c: usize,
    d: u8,
    best: &mut Best,
) {
    let cd = (c * 9 + d as usize - 1) as u16;
    if chains.may_contradict(c, d, true) {
        let oi = runs.on(pool, b, Kind::Nishio, cd);
        let absurd = runs.outs[oi].absurd;
        offer_contradiction(b, Kind::Nishio, pool, absurd, cd, false, best);
    }
    if chains.may_contradict(c, d, false) {
        let absurd = run_off(b, Kind::Nishio, pool, off_out, cd);
        offer_contradiction(b, Kind::Nishio, pool, absurd, cd, true, best);
    }
}

/// Runs the implications of candidate `cd` assumed off into `off_out`; returns the
/// contradiction it reached, if any.
fn run_off(
    b: &Board,
    kind: Kind,
    pool: &mut Pool,
    off_out: &mut Outcome,
    cd: u16,
) -> Option<(u32, u32)> {
    off_out.reset(&pool.nodes);
    let ni = pool.add(cd, false, &[]);
    off_out.push_off(cd, ni);
    pool.run(b, kind, off_out);
    off_out.absurd
}

/// Contradiction hint: assuming candidate `cd` in the state opposite to `target_on` led to
/// `absurd`, so `cd` takes state `target_on`.
fn offer_contradiction(
    b: &Board,
    kind: Kind,
    pool: &mut Pool,
    absurd: Option<(u32, u32)>,
    cd: u16,
    target_on: bool,
    best: &mut Best,
) {
    if let Some((a, z)) = absurd {
        let flat = pool.ancestors(a) + pool.ancestors(z);
        let n = full_complexity(pool, best, kind.base(), &[a, z], flat, 7);
        let rating = kind.base() + length_increment(n);
        if best.collect {
            best.hit(b, (rating, n, 7), cd, target_on, NO_HOUSE, &[a, z]);
        } else {
            offer_target(b, kind, (rating, n, 7), (cd, target_on), &[a, z], best);
        }
    }
}

/// Double-implication hints: whatever a candidate implies both when on (`on_out`) and when
/// off (`off_out`).
fn double_implications(
    b: &Board,
    kind: Kind,
    pool: &mut Pool,
    on_out: &Outcome,
    off_out: &Outcome,
    best: &mut Best,
) {
    let base = kind.base();
    for (state, list) in [(true, &on_out.on), (false, &on_out.off)] {
        let mut common = *on_out.bits(state);
        if !intersect(&mut common, off_out.bits(state)) {
            continue;
        }
        for &pi in list {
            let q = pool.nodes[pi as usize].cd;
            if !has(&common, q) {
                continue;
            }
            let qi = off_out.node(q, state);
            if qi != NONE {
                let flat = pool.ancestors(pi) + pool.ancestors(qi);
                let n = full_complexity(pool, best, base, &[pi, qi], flat, 1);
                let rating = base + length_increment(n);
                if best.collect {
                    best.hit(b, (rating, n, 1), q, state, NO_HOUSE, &[pi, qi]);
                } else {
                    offer_target(b, kind, (rating, n, 1), (q, state), &[pi, qi], best);
                }
            }
        }
    }
}

/// Cell reduction: whatever every candidate of a cell implies (`on_idx`: the index in
/// `runs` of each candidate's "on" run).
fn cell_chains(
    b: &Board,
    kind: Kind,
    on_idx: &[usize],
    pool: &mut Pool,
    runs: &Runs,
    best: &mut Best,
) {
    let base = kind.base();
    for state in [true, false] {
        let first = &runs.outs[on_idx[0]];
        let mut common = *first.bits(state);
        if !on_idx[1..]
            .iter()
            .all(|&oi| intersect(&mut common, runs.outs[oi].bits(state)))
        {
            continue;
        }
        let list = if state { &first.on } else { &first.off };
        for &pi in list {
            let q = pool.nodes[pi as usize].cd;
            if !has(&common, q) {
                continue;
            }
            let mut ids = [NONE; 9];
            for (vi, &oi) in on_idx.iter().enumerate() {
                ids[vi] = runs.outs[oi].node(q, state);
            }
            // The ancestor counts only until they pass the best hint's complexity.
            let (mut flat, limit) = (0, best.limit());
            for &m in &ids[..on_idx.len()] {
                flat += pool.ancestors(m);
                if flat > limit {
                    break;
                }
            }
            if flat > limit {
                continue;
            }
            let total = full_complexity(pool, best, base, &ids[..on_idx.len()], flat, 5);
            let rating = base + length_increment(total);
            if best.collect {
                let c = pool.nodes[runs.outs[on_idx[0]].on[0] as usize].cd / 9;
                let roots = &ids[..on_idx.len()];
                best.hit(b, (rating, total, 5), q, state, CELL_HINT + c as u8, roots);
                continue;
            }
            let roots = &ids[..on_idx.len()];
            offer_target(b, kind, (rating, total, 5), (q, state), roots, best);
        }
    }
}

/// Region reduction: for each house where `c` is the first place of `d` (two or more places)
/// and whose bit (by index into [`KINDS`]) is set in `houses`, whatever every placement of `d`
/// in the house implies.
fn region_chains(
    b: &Board,
    kind: Kind,
    (c, d, houses): (usize, u8, u8),
    mine: usize,
    pool: &mut Pool,
    runs: &mut Runs,
    best: &mut Best,
) {
    let base = kind.base();
    let hs = houses_of(c);
    for (ki, p) in region_places(b, c, d).into_iter().enumerate() {
        if p == 0 || houses >> ki & 1 == 0 {
            continue;
        }
        let k = KINDS[ki];
        // Outcomes of the other places, computed one at a time; intersect as we go. Few nodes
        // survive, so their ancestors are counted only then.
        let (mut common_on, mut common_off) = (runs.outs[mine].on_bits, runs.outs[mine].off_bits);
        for oc in cells(p & !(1u128 << c)) {
            let cd = (oc * 9 + d as usize - 1) as u16;
            let oi = runs.on(pool, b, kind, cd);
            let other = &runs.outs[oi];
            let on_left = intersect(&mut common_on, &other.on_bits);
            let off_left = intersect(&mut common_off, &other.off_bits);
            if !on_left && !off_left {
                break;
            }
        }
        let mine = &runs.outs[mine];
        for (state, list, common) in [(true, &mine.on, common_on), (false, &mine.off, common_off)] {
            for &i in list.iter() {
                let q = pool.nodes[i as usize].cd;
                if !has(&common, q) {
                    continue;
                }
                let (mut flat, limit) = (0, best.limit());
                for m in region_nodes(runs, p, d, q, state) {
                    flat += pool.ancestors(m);
                    if flat > limit {
                        break;
                    }
                }
                if flat > limit {
                    continue;
                }
                let roots: Vec<u32> = if pool.nested.is_empty() && !best.collect && !best.explain {
                    Vec::new()
                } else {
                    region_nodes(runs, p, d, q, state).collect()
                };
                let n = if pool.nested.is_empty() {
                    flat
                } else {
                    full_complexity(pool, best, base, &roots, flat, 6)
                };
                let rating = base + length_increment(n);
                if best.collect {
                    best.hit(b, (rating, n, 6), q, state, hs[k] as u8, &roots);
                } else {
                    offer_target(b, kind, (rating, n, 6), (q, state), &roots, best);
                }
            }
        }
    }
}

/// The nodes behind a region hint on candidate `q` (state `on`): its node in the run of each
/// place `p` of digit `d`.
fn region_nodes(runs: &Runs, p: Cells, d: u8, q: u16, on: bool) -> impl Iterator<Item = u32> + '_ {
    cells(p).map(move |oc| runs.outs[runs.idx[oc * 9 + d as usize - 1] as usize].node(q, on))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::rate::tests::{check_path, golden_state};
    use crate::rate::{explain, rate, Flavor, Limits};
    use crate::Grid;

    /// Every Nishio, dynamic and dynamic (+) forcing-chain step on the golden paths comes with
    /// its proof ([`assert_proof`]: per end of the hint, its implications from an assumption
    /// of its own, or from the target for a contradiction, every node a candidate of the
    /// board), and together the chains have the complexity the rating counts.
    #[test]
    fn explained_dynamic_chains_are_their_hints() {
        let mut checked = [0usize; 3];
        // The golden paths, and one of `data/magictour_top1465.txt` (MIT) whose path takes
        // dynamic forcing chains (+).
        let plus: Grid =
            "7.8...3.....2.1...5.........4.....263...8.......1...9..9.6....4....7.5..........."
                .parse()
                .unwrap();
        let plus_path = crate::rate::tests::path_states(&plus);
        let paths = crate::rate::tests::golden_paths()
            .map(|(_, states)| states)
            .chain([plus_path]);
        for states in paths {
            for (b, step) in states {
                let (k, kind) = match step.technique {
                    Technique::Nishio => (0, Kind::Nishio),
                    Technique::DynamicForcingChain => (1, Kind::Dynamic),
                    Technique::DynamicForcingChainPlus => (2, Kind::DynamicPlus),
                    _ => continue,
                };
                let n = assert_proof(&b, &step);
                assert_eq!(step.rating, kind.base() + length_increment(n), "{step}");
                checked[k] += 1;
            }
        }
        assert!(checked.iter().all(|&n| n >= 1), "{checked:?}");
    }

    /// Asserts that the chains of `step`, found on `b`, are a forcing-chain proof: at least
    /// two, every node a candidate of `b`; either a contradiction (two ends, one candidate on
    /// and off, both chains from the step's target assumed in the state the step refutes) or
    /// one conclusion that every chain ends in and that is the step's progress, each chain
    /// from an assumption of its own. Returns how many nodes they have together. (Which cell
    /// or house the assumptions share is for the callers that know the rule.)
    pub(crate) fn assert_proof(b: &Board, step: &Step) -> usize {
        let chains = &step.chains;
        assert!(chains.len() >= 2, "{step}");
        for chain in chains {
            for &(c, d, _) in chain {
                assert!(b.has(c as usize, d), "{step}: r{c} {d} is no candidate");
            }
        }
        let ends: Vec<_> = chains.iter().map(|c| *c.last().unwrap()).collect();
        let (c, d) = step
            .eliminations
            .first()
            .or(step.placements.first())
            .copied()
            .unwrap();
        let contradiction = ends.len() == 2
            && ends[0].0 == ends[1].0
            && ends[0].1 == ends[1].1
            && ends[0].2 != ends[1].2;
        if contradiction {
            // Both from the target, assumed in the state the step refutes: on when
            // it is removed, off when it is placed.
            let on = !step.eliminations.is_empty();
            assert!(chains.iter().all(|ch| ch[0] == (c, d, on)), "{step}");
        } else {
            // One conclusion: on places it, off removes it.
            assert!(ends.iter().all(|&e| e == ends[0]), "{step}");
            let (ec, ed, eon) = ends[0];
            assert_eq!((ec, ed), (c, d), "{step}");
            assert_eq!(eon, step.eliminations.is_empty(), "{step}");
            // The branches' assumptions differ.
            let starts: std::collections::BTreeSet<_> = chains.iter().map(|ch| ch[0]).collect();
            assert_eq!(starts.len(), chains.len(), "{step}");
        }
        chains.iter().map(Vec::len).sum()
    }

    /// The puzzles of magictour top1465 (MIT, `data/`) whose paths need dynamic forcing chains
    /// (+), and two of the HardestDatabase list (`data/norvig_sudokus_hard_375.txt`, MIT), with
    /// serate 1.2.1.3's ER/EP/ED (SE 1.2.1 rates them the same): the engine's are the same in
    /// both flavours, every step keeps the solution, and some step is a dynamic forcing chain (+).
    #[test]
    fn dynamic_forcing_chains_plus_rate_as_serate() {
        for (p, want) in [
            (
                "7.8...3.....2.1...5.........4.....263...8.......1...9..9.6....4....7.5...........",
                "9.5/1.2/1.2",
            ),
            (
                "7.8...3.....6.1...5.........4.....263...8.......1...9..9.2....4....7.5...........",
                "9.6/1.2/1.2",
            ),
            (
                "7.....4...2..7..8...3..8..9...5..3...6..2..9...1..7..6...3..9...3..4..6...9..1..5",
                "9.8/1.2/1.2",
            ),
            (
                ".....1.....7.2.....9.6.8..5..1..7....6.9....42.9.........8...59.8....4....6.3...8",
                "10.1/10.1/9.8",
            ),
            (
                "..3.9....1...4..36..8..21...4..8..73...9................4.7..686........7.....5.4",
                "9.7/9.7/2.6",
            ),
        ] {
            let p: Grid = p.parse().unwrap();
            let r = check_path(&p);
            assert_eq!(r.se_string(), want, "{p}");
            let se121 = Limits {
                flavor: Flavor::Se121,
                ..Limits::default()
            };
            assert_eq!(rate(&p, &se121).se_string(), want, "{p} (SE 1.2.1)");
            let (_, steps) = explain(&p, &Limits::default());
            let plus: Vec<u16> = steps
                .iter()
                .filter(|s| s.technique == Technique::DynamicForcingChainPlus)
                .map(|s| s.rating)
                .collect();
            eprintln!("{p}: dynamic forcing chains (+) at {plus:?}");
            assert!(!plus.is_empty(), "{p}");
        }
    }

    /// Each rule, run alone on the state where SE's order first needs it, finds that step, and
    /// what it removes is not part of the solution.
    /// Skipping the cells, regions and runs that cannot offer a hint changes no hint: the
    /// searches with and without the tests agree.
    #[test]
    fn skipped_cells_regions_and_runs_offer_nothing() {
        let mut pruned = 0;
        for t in [
            Technique::ForcingChain,
            Technique::Nishio,
            Technique::MultipleForcingChain,
            Technique::DynamicForcingChain,
        ] {
            let (b, _, _) = golden_state(t);
            for kind in [Kind::Multiple, Kind::Nishio] {
                let chains = Chains::new(&b, kind);
                let want = search_with(&b, kind, &Chains::All, false);
                assert_eq!(
                    search_with(&b, kind, &chains, false),
                    want,
                    "{t:?} {kind:?}"
                );
                for c in cells(b.empty) {
                    pruned += !chains.cell(&b, c) as usize;
                    for d in digits(b.cand[c]) {
                        pruned += !chains.may_contradict(c, d, true) as usize;
                    }
                }
            }
        }
        assert!(pruned > 0, "the test never skips a cell");
    }

    #[test]
    fn each_forcing_rule_finds_its_step_on_a_real_state() {
        for kind in [Kind::Nishio, Kind::Multiple, Kind::Dynamic] {
            let (b, step, sol) = golden_state(kind.technique());
            // The rating path's step is the path's without what proves it.
            let s = forcing_chains(&b, kind).unwrap();
            assert!(s.chains.is_empty());
            assert!(s.same_hint(&step), "{s} / {step}");
            assert_eq!(forcing_chains_explained(&b, kind).unwrap(), step);
            assert!(s.rating >= kind.technique().base());
            for &(c, d) in &s.eliminations {
                assert!(b.has(c as usize, d));
                assert_ne!(
                    sol.get(c as usize),
                    d,
                    "{kind:?} removes the solution digit"
                );
            }
        }
    }
}
