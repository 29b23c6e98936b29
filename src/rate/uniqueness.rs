//! Uniqueness techniques: unique rectangles and loops (types 1-4, 4.5 plus loop-size and
//! subset-size increments) and the bivalue universal grave (BUG types 1-4, 5.6-5.7+).
//!
//! Both rely on the puzzle having exactly one solution, which the caller guarantees.

use std::cell::RefCell;

use super::board::{
    bit, cells, count, count9, digits, house_cells, houses_of, one_digit, two_digits, Board, Cells,
    HOUSES, HOUSE_CELLS, PEERS,
};
use super::changed::Changed;
use super::scale::Technique;
use super::subsets::combos;
use super::Step;

/// Longest loop searched (SE has no limit; real loops are short).
const MAX_LOOP: usize = 16;

struct LoopSearch<'a> {
    b: &'a Board,
    both: Cells,
    path: [u8; MAX_LOOP],
    len: usize,
    in_path: Cells,
    /// The path's cells at even and at odd positions.
    parity: [Cells; 2],
    found: Vec<([u8; MAX_LOOP], usize)>,
    /// Whether a loop was dropped because `found` was full.
    truncated: bool,
    /// lkSudoku's fix (Sukaku Explainer's default): each branch of the walk carries its own
    /// extra digits, where SE 1.2.1 gathers them over the siblings tried before it.
    lk: bool,
}

impl<'a> LoopSearch<'a> {
    /// A walk over the cells `both` of `b`, its loops appended to `found` (emptied first).
    fn new(b: &'a Board, both: Cells, lk: bool, mut found: Vec<([u8; MAX_LOOP], usize)>) -> Self {
        found.clear();
        LoopSearch {
            b,
            both,
            path: [0; MAX_LOOP],
            len: 0,
            in_path: 0,
            parity: [0; 2],
            found,
            truncated: false,
            lk,
        }
    }

    /// SE's loop walk: from the current cell, through each house kind other than the one used
    /// to arrive (box, row, column), to cells holding both loop digits; at most two cells with
    /// extra candidates unless they all share one extra digit. A cell that sees a path cell
    /// of its own position's parity is not entered: no loop through both is valid (see
    /// [`valid_loop`]).
    fn walk(&mut self, cell: usize, allowed_ex: i32, ex_in: u16, last_kind: usize, v: u16) {
        self.parity[self.len % 2] |= 1 << cell;
        self.path[self.len] = cell as u8;
        self.len += 1;
        self.in_path |= 1 << cell;
        let same = self.parity[self.len % 2];
        let mut ex = ex_in;
        let hs = houses_of(cell);
        for kind in [2usize, 0, 1] {
            if kind == last_kind {
                continue;
            }
            // The start (to close the loop) and the cells still open, in cell order.
            let start = if self.len >= 4 { 1 << self.path[0] } else { 0 };
            let open = HOUSES[hs[kind]] & ((self.both & !self.in_path) | start);
            for next in cells(open) {
                if next == self.path[0] as usize {
                    if self.found.len() < 256 {
                        self.found.push((self.path, self.len));
                    } else {
                        self.truncated = true;
                    }
                } else {
                    let m = self.b.cand[next];
                    if self.lk {
                        ex = ex_in;
                    }
                    ex |= m & !v;
                    // Bivalue, or the extra digits so far are one digit (no counts: see
                    // `more_than`).
                    let pair = two_digits(m);
                    if (pair || one_digit(ex) || allowed_ex > 0)
                        && self.len < MAX_LOOP
                        && PEERS[next] & same == 0
                    {
                        let na = if pair { allowed_ex } else { allowed_ex - 1 };
                        self.walk(next, na, ex, kind, v);
                    }
                }
            }
        }
        self.len -= 1;
        self.in_path &= !(1 << cell);
        self.parity[self.len % 2] &= !(1 << cell);
    }
}

/// The cells holding both loop digits `v` (a bivalue cell's candidates).
fn holding_both(b: &Board, v: u16) -> Cells {
    digits(v).fold(b.empty, |m, d| m & b.pos[d as usize - 1])
}

/// What a loop walk from one start cell reads of its board: its start, the loop digits (the
/// start's candidates), the cells holding both (`both`) and the other digits of those cells
/// (the extra digits it counts). All of it is `pos[d] & both` for the nine digits: the start
/// is one of `both`, so the digits whose places hold it are the loop digits.
fn walk_input(b: &Board, both: Cells) -> [Cells; 9] {
    std::array::from_fn(|d| b.pos[d] & both)
}

/// The last loop walk from one start cell and what it read ([`walk_input`]): when that is as
/// it was, the walk finds the same loops in the same order, so it is not walked again. Along
/// a path most steps change none of it for most starts.
#[derive(Default)]
struct Walked {
    /// Whether a walk was recorded, with lkSudoku's fix or not.
    valid: bool,
    lk: bool,
    read: [Cells; 9],
    found: Vec<([u8; MAX_LOOP], usize)>,
    truncated: bool,
}

impl Walked {
    /// Whether this is the walk, with lkSudoku's fix or not (`lk`), of a start whose walk
    /// reads `read`.
    fn remembers(&self, read: &[Cells; 9], lk: bool) -> bool {
        self.valid && self.lk == lk && self.read == *read
    }

    /// The loops of the walk from `start` on `b` (`both`: the cells holding both of its
    /// digits), walked again only when what the walk reads has changed.
    fn walk(&mut self, b: &Board, start: usize, both: Cells, lk: bool) -> &Walked {
        let read = walk_input(b, both);
        if self.remembers(&read, lk) {
            return self;
        }
        // Invalid until the walk is complete (a walk cut short leaves no stale entry).
        self.valid = false;
        let mut ls = LoopSearch::new(b, both, lk, std::mem::take(&mut self.found));
        ls.walk(start, 2, 0, usize::MAX, b.cand[start]);
        self.found = ls.found;
        self.truncated = ls.truncated;
        self.read = read;
        self.lk = lk;
        self.valid = true;
        self
    }
}

thread_local! {
    /// The last loop walk from each start cell on this thread.
    static WALKS: RefCell<Vec<Walked>> = RefCell::new((0..81).map(|_| Walked::default()).collect());
}

/// Every house visited by the loop is visited by exactly two of its cells, one at an even and
/// one at an odd position.
fn valid_loop(path: &[u8]) -> bool {
    let (mut odd, mut even) = (0u32, 0u32);
    for (i, &c) in path.iter().enumerate() {
        for h in houses_of(c as usize) {
            let set = if i % 2 == 1 { &mut odd } else { &mut even };
            if *set & (1 << h) != 0 {
                return false;
            }
            *set |= 1 << h;
        }
    }
    odd == even
}

fn loop_increment(len: usize) -> u16 {
    let mut r = 0;
    if len >= 10 {
        r += 3;
    }
    if len >= 8 {
        r += 2;
    } else if len >= 6 {
        r += 1;
    }
    r
}

fn mk(tech: Technique, rating: u16, loop_cells: Cells) -> Step {
    let mut s = Step::new(tech);
    s.rating = rating;
    s.set_cells(loop_cells);
    s
}

/// Unique rectangles and loops: the easiest hint of any type (ties: lower type first, then
/// discovery order), as SE sorts them, and whether every loop was looked at (a start with more
/// than 256 loops keeps the first 256).
///
/// A loop's hints depend only on the candidates of the houses of its cells, so only starts
/// whose possible loop cells meet a changed cell or one of its peers are walked, and only such
/// loops are looked at.
pub fn unique_loops(b: &Board, changed: &Changed) -> (Option<Step>, bool) {
    loops(b, changed, false)
}

/// [`unique_loops`] with lkSudoku's fixes, as Sukaku Explainer applies them by default: the
/// walk's extra digits kept per branch, and type 3 trying sets from two digits up (naked sets
/// still at least as large as the roofs' extra digits).
pub fn unique_loops_lk(b: &Board, changed: &Changed) -> (Option<Step>, bool) {
    loops(b, changed, true)
}

fn loops(b: &Board, changed: &Changed, lk: bool) -> (Option<Step>, bool) {
    let mut hints: Vec<(u16, u8, Step)> = Vec::new();
    let biv = b.bivalue();
    let near = changed.near();
    let mut complete = true;
    // The loops already looked at, as (cells, digits, first roof): a loop's hints depend only on
    // these (the roofs' order matters to type 3's hidden sets, the path's order nowhere else),
    // and a loop found again, from another start or the other way round, only repeats hints
    // found before it, which win every tie.
    let mut seen: Vec<(Cells, u16, u8)> = Vec::new();
    WALKS.with_borrow_mut(|walks| {
        for start in cells(biv) {
            let v = b.cand[start];
            let both = holding_both(b, v);
            if count(both) < 4 || (both | 1 << start) & near == 0 {
                continue;
            }
            let w = walks[start].walk(b, start, both, lk);
            complete &= !w.truncated;
            for (path, len) in &w.found {
                let path = &path[..*len];
                // A loop none of whose cells is or sees a change offers what it offered before.
                if path.iter().all(|&c| near & 1 << c == 0) || !valid_loop(path) {
                    continue;
                }
                let lc = path.iter().fold(0 as Cells, |m, &c| m | 1 << c);
                let roof = path
                    .iter()
                    .find(|&&c| !two_digits(b.cand[c as usize]))
                    .map_or(u8::MAX, |&c| c);
                if seen.contains(&(lc, v, roof)) {
                    continue;
                }
                seen.push((lc, v, roof));
                loop_hints(b, path, lc, v, lk, &mut hints);
            }
        }
    });
    let mut best: Option<(u16, u8, Step)> = None;
    for h in hints {
        if best.as_ref().is_none_or(|b| (h.0, h.1) < (b.0, b.1)) {
            best = Some(h);
        }
    }
    let step = best.map(|h| {
        let mut s = h.2;
        s.eliminations.sort_unstable();
        s
    });
    (step, complete)
}

/// Adds to `hints` (rating, type, step) the hints of types 1-4 of the valid loop `path` (its
/// cells `lc`) on the candidates `v` that sort before every earlier one (a lower rating, or the
/// same rating and a lower type): the others can never be picked. Two hints with the same
/// eliminations are not the same hint: a type 3 naked set and a hidden set may remove the same
/// candidates at different ratings.
fn loop_hints(
    b: &Board,
    path: &[u8],
    lc: Cells,
    v: u16,
    lk: bool,
    hints: &mut Vec<(u16, u8, Step)>,
) {
    let len = path.len();
    let base = 45 + loop_increment(len);
    let extras: Vec<usize> = path
        .iter()
        .map(|&c| c as usize)
        .filter(|&c| b.cand[c].count_ones() > 2)
        .collect();
    let push = |hints: &mut Vec<(u16, u8, Step)>, t: u8, s: Step| {
        if !s.eliminations.is_empty() && hints.iter().all(|h| (h.0, h.1) > (s.rating, t)) {
            hints.push((s.rating, t, s));
        }
    };
    match extras.len() {
        1 => {
            let mut s = mk(Technique::UniqueLoop1, base, lc);
            for d in digits(v) {
                s.eliminations.push((extras[0] as u8, d));
            }
            push(hints, 1, s);
        }
        n if n >= 2 => {
            let mut ex = 0u16;
            for &c in &extras {
                ex |= b.cand[c];
            }
            ex &= !v;
            if n > 2 || ex.count_ones() == 1 {
                if ex.count_ones() == 1 {
                    let d = ex.trailing_zeros() as u8 + 1;
                    let mut common = super::board::ALL;
                    for &c in &extras {
                        common &= PEERS[c];
                    }
                    let mut s = mk(Technique::UniqueLoop2, base, lc);
                    for c in cells(common & b.pos[d as usize - 1]) {
                        s.eliminations.push((c as u8, d));
                    }
                    push(hints, 2, s);
                }
            } else {
                for s in type3(b, base, lc, (extras[0], extras[1]), v, ex, lk) {
                    push(hints, 3, s);
                }
            }
            if n == 2 {
                if let Some(s) = type4(b, base, lc, extras[0], extras[1], v) {
                    push(hints, 4, s);
                }
            }
        }
        _ => {}
    }
}

fn shared_houses(c1: usize, c2: usize) -> impl Iterator<Item = usize> {
    let (a, b) = (houses_of(c1), houses_of(c2));
    // SE's kind order: box, row, column.
    [2usize, 0, 1]
        .into_iter()
        .filter(move |&k| a[k] == b[k])
        .map(move |k| a[k])
}

/// Type 3: the extra candidates of the two roof cells act as one cell of a naked set (or the
/// loop digits plus others form a hidden set) in a house both roofs share.
fn type3(
    b: &Board,
    base: u16,
    lc: Cells,
    (c1, c2): (usize, usize),
    v: u16,
    extra: u16,
    lk: bool,
) -> Vec<Step> {
    let roofs = Roofs {
        base,
        lc,
        c1,
        c2,
        v,
        extra,
    };
    let mut out = Vec::new();
    let xk = extra.count_ones() as usize;
    for degree in if lk { 2 } else { xk }..=7 {
        for h in shared_houses(c1, c2) {
            let n_empty = count(b.empty & HOUSES[h]) as usize;
            if degree * 2 <= n_empty && degree >= xk {
                type3_naked(b, &roofs, degree, h, &mut out);
            }
            if degree * 2 < n_empty && degree >= 2 {
                type3_hidden(b, &roofs, degree, h, &mut out);
            }
        }
    }
    out
}

/// A unique loop's two roof cells with extra candidates (type 3), and the loop's hint data.
struct Roofs {
    /// The loop's rating before the set's size is added.
    base: u16,
    /// The loop's cells.
    lc: Cells,
    c1: usize,
    c2: usize,
    /// The loop digits.
    v: u16,
    /// The roofs' extra digits.
    extra: u16,
}

/// Type 3 with a naked set of `degree` digits in house `h`: c1 (with its extra digits) plus
/// degree-1 other cells, c2 excluded.
fn type3_naked(b: &Board, r: &Roofs, degree: usize, h: usize, out: &mut Vec<Step>) {
    let (c1, c2, extra) = (r.c1, r.c2, r.extra);
    let hc = HOUSES[h];
    let others: Vec<usize> = cells(hc).filter(|&c| c != c1 && c != c2).collect();
    let common_roof = extra & b.cand[c1] & b.cand[c2];
    let _ = combos(&others, degree - 1, |set| {
        let mut naked = common_roof;
        let mut union = extra;
        for &c in set {
            let m = b.cand[c];
            if m.count_ones() <= 1 {
                return None::<()>;
            }
            naked |= m;
            union |= m;
        }
        if naked.count_ones() as usize != degree || union.count_ones() as usize != degree {
            return None;
        }
        let mut s = mk(Technique::UniqueLoop3, r.base + (degree as u16 - 1), r.lc);
        let mut setc: Cells = (1 << c1) | (1 << c2);
        for &c in set {
            setc |= 1 << c;
        }
        for c in cells(b.empty & hc & !setc) {
            for d in digits(b.cand[c] & union) {
                s.eliminations.push((c as u8, d));
            }
        }
        if !s.eliminations.is_empty() {
            out.push(s);
        }
        None
    });
}

/// Type 3 with a hidden set in house `h`: the loop digits plus degree-2 digits outside the
/// extras confined to `degree` cells of the house (c2 left out).
fn type3_hidden(b: &Board, r: &Roofs, degree: usize, h: usize, out: &mut Vec<Step>) {
    let (c1, c2, v, extra) = (r.c1, r.c2, r.v, r.extra);
    let rem: Vec<usize> = (1..=9usize)
        .filter(|&d| v & bit(d as u8) == 0 && extra & bit(d as u8) == 0)
        .collect();
    let run = |set: &[usize], out: &mut Vec<Step>| {
        let mut vals = v;
        for &d in set {
            vals |= bit(d as u8);
        }
        let mut common: Cells = 0;
        for d in digits(vals) {
            let p = b.pos_in(d, h) & !(1u128 << c2);
            if p == 0 {
                return;
            }
            common |= p;
        }
        if count(common) as usize != degree {
            return;
        }
        let cellsx = common & !(1u128 << c1) & !(1u128 << c2);
        let inc = (count(cellsx) as u16).saturating_sub(1);
        let mut s = mk(Technique::UniqueLoop3, r.base + inc, r.lc);
        for c in cells(cellsx) {
            for d in digits(b.cand[c] & !vals) {
                s.eliminations.push((c as u8, d));
            }
        }
        if !s.eliminations.is_empty() {
            out.push(s);
        }
    };
    if degree == 2 {
        run(&[], out);
    } else {
        let _ = combos(&rem, degree - 2, |set| {
            run(set, out);
            None::<()>
        });
    }
}

/// Type 4: one loop digit is locked to the two roof cells in a house they share, so the other
/// loop digit goes from both.
fn type4(b: &Board, base: u16, lc: Cells, c1: usize, c2: usize, v: u16) -> Option<Step> {
    let mut ds = digits(v);
    let (v1, v2) = (ds.next()?, ds.next()?);
    let (mut r1, mut r2) = (false, false);
    let roof = (1u128 << c1) | (1u128 << c2);
    for h in shared_houses(c1, c2) {
        if b.pos_in(v1, h) & !roof == 0 {
            r1 = true;
        }
        if b.pos_in(v2, h) & !roof == 0 {
            r2 = true;
        }
    }
    let rem = if r1 {
        v2
    } else if r2 {
        v1
    } else {
        return None;
    };
    let mut s = mk(Technique::UniqueLoop4, base, lc);
    s.eliminations.push((c1 as u8, rem));
    s.eliminations.push((c2 as u8, rem));
    Some(s)
}

/// Bivalue universal grave: if every unsolved cell but a few would be bivalue with each digit
/// twice per house, one of the extra candidates must be true.
pub fn bug(b: &Board) -> Option<Step> {
    bug_with(b, false)
}

/// [`bug`] with lkSudoku's type 2 fix, as Sukaku Explainer applies it by default: when every
/// house where a digit is neither absent nor in two places names the same digit, all the
/// cells of three or more candidates holding it there are BUG cells, also where a house holds
/// two of them.
pub fn bug_lk(b: &Board) -> Option<Step> {
    bug_with(b, true)
}

fn bug_with(b: &Board, lk: bool) -> Option<Step> {
    let mut temp = b.cand;
    let mut bug_cells: Vec<usize> = Vec::new();
    let mut bug_values = [0u16; 81];
    let mut all: u16 = 0;
    let mut common: Option<Cells> = None;
    // The open cells with three or more candidates.
    let wide = cells(b.empty)
        .filter(|&c| count9(b.cand[c]) >= 3)
        .fold(0 as Cells, |m, c| m | 1 << c);
    // lk: the wide cells holding the digit of every such house, while it is one digit.
    let mut extra: Option<(Cells, u8)> = None;
    let mut one_value = true;
    let mut add = |c: usize, d: u8, bug_cells: &mut Vec<usize>, temp: &mut [u16; 81]| {
        if !bug_cells.contains(&c) {
            bug_cells.push(c);
        }
        bug_values[c] |= bit(d);
        temp[c] &= !bit(d);
        let mut cc = common.unwrap_or(super::board::ALL) & PEERS[c];
        for &x in bug_cells.iter() {
            cc &= !(1u128 << x);
        }
        common = Some(cc);
        cc
    };
    for kind in [2usize, 0, 1] {
        for i in 0..9 {
            let h = kind * 9 + i;
            // Places in the house (bit j: cell HOUSE_CELLS[h][j]), and its cells of three or
            // more candidates.
            let places = b.house_places(h);
            let multi = super::board::places(wide, h);
            for d in 1..=9u8 {
                let p = places[d as usize - 1];
                let k = count9(p);
                if k == 0 || k == 2 {
                    continue;
                }
                let nb = p & multi;
                if nb == 0 {
                    return None;
                }
                if lk {
                    let these = house_cells(h, nb);
                    match &mut extra {
                        None => extra = Some((these, d)),
                        Some((cs, v)) if one_value && *v == d => *cs |= these,
                        _ => one_value = false,
                    }
                }
                if count9(nb) == 1 {
                    let c = HOUSE_CELLS[h][nb.trailing_zeros() as usize] as usize;
                    all |= bit(d);
                    let cc = add(c, d, &mut bug_cells, &mut temp);
                    if bug_cells.len() > 1 && all.count_ones() > 1 && cc == 0 {
                        return None;
                    }
                }
            }
        }
    }
    if let (true, Some((cs, d))) = (one_value, extra) {
        if count(cs) as usize > bug_cells.len() {
            for c in cells(cs) {
                if bug_cells.contains(&c) {
                    continue;
                }
                let cc = add(c, d, &mut bug_cells, &mut temp);
                if bug_cells.len() > 1 && all.count_ones() > 1 && cc == 0 {
                    return None;
                }
            }
        }
    }
    if !is_bug_grid(b, &temp) {
        return None;
    }
    bug_hint(b, &bug_cells, &bug_values, all, common.unwrap_or(0))
}

/// The BUG hint of a BUG grid with `bug_cells` (their BUG digits `bug_values`, all of them
/// `all`; `common`: the cells seeing every BUG cell): type 1 for one cell, else types 2-4.
/// (lkSudoku's extra BUG cells add no digit to `all`, as in Sukaku Explainer.)
fn bug_hint(
    b: &Board,
    bug_cells: &[usize],
    bug_values: &[u16; 81],
    all: u16,
    common: Cells,
) -> Option<Step> {
    let mut bc: Cells = 0;
    for &c in bug_cells {
        bc |= 1 << c;
    }
    let common = common & b.empty;
    if bug_cells.len() == 1 {
        let c = bug_cells[0];
        let mut s = Step::new(Technique::Bug1);
        for d in digits(b.cand[c] & !all) {
            s.eliminations.push((c as u8, d));
        }
        s.set_cells(bc);
        return Some(s);
    }
    let mut hints: Vec<Step> = Vec::new();
    if all.count_ones() == 1 {
        let d = all.trailing_zeros() as u8 + 1;
        let e = common & b.pos[d as usize - 1];
        if e != 0 {
            hints.push(Step::eliminate(Technique::Bug2, d, e, bc));
        }
        if bug_cells.len() == 2 {
            bug4(b, bug_cells, bug_values, all, bc, &mut hints);
        }
    } else if common != 0 {
        if bug_cells.len() == 2 {
            bug4(b, bug_cells, bug_values, all, bc, &mut hints);
        }
        bug3(b, bug_cells, all, common, bc, &mut hints);
    }
    hints.into_iter().next()
}

/// Whether the candidates `temp` of the unsolved cells of `b` (the extra candidates removed)
/// are a BUG: every cell bivalue, every digit of a house in no cell or in two.
fn is_bug_grid(b: &Board, temp: &[u16; 81]) -> bool {
    if cells(b.empty).any(|c| !two_digits(temp[c])) {
        return false;
    }
    for h in 0..27 {
        for d in 1..=9u8 {
            let k = cells(HOUSES[h] & b.empty)
                .filter(|&c| temp[c] & bit(d) != 0)
                .count();
            if k != 0 && k != 2 {
                return false;
            }
        }
    }
    true
}

fn bug4(
    b: &Board,
    bug_cells: &[usize],
    bug_values: &[u16; 81],
    all: u16,
    bc: Cells,
    out: &mut Vec<Step>,
) {
    let (c1, c2) = (bug_cells[0], bug_cells[1]);
    let common = b.cand[c1] & b.cand[c2] & !all;
    if common.count_ones() != 1 {
        return;
    }
    for _h in shared_houses(c1, c2) {
        let mut s = Step::new(Technique::Bug4);
        for c in [c1, c2] {
            for d in digits(b.cand[c] & !bug_values[c] & !common) {
                s.eliminations.push((c as u8, d));
            }
        }
        s.set_cells(bc);
        out.push(s);
    }
}

fn bug3(b: &Board, bug_cells: &[usize], all: u16, common: Cells, bc: Cells, out: &mut Vec<Step>) {
    for kind in [2usize, 0, 1] {
        let h = houses_of(bug_cells[0])[kind];
        if bug_cells.iter().any(|&c| houses_of(c)[kind] != h) {
            continue;
        }
        let region_cells: Vec<usize> = cells(common & HOUSES[h]).collect();
        for degree in 2..=6usize {
            if region_cells.len() < degree {
                continue;
            }
            let _ = combos(&region_cells, degree - 1, |set| {
                let mut other = 0u16;
                for &c in set {
                    if b.cand[c].count_ones() <= 1 {
                        return None::<()>;
                    }
                    other |= b.cand[c];
                }
                if other.count_ones() as usize != degree || all.count_ones() <= 1 {
                    return None;
                }
                let naked = other | all;
                if naked.count_ones() as usize != degree {
                    return None;
                }
                let mut s = Step::new(Technique::Bug3);
                s.rating = 57 + (degree as u16 - 1);
                let mut sc: Cells = bc;
                for &c in set {
                    sc |= 1 << c;
                }
                for c in cells(common & HOUSES[h] & !sc) {
                    for d in digits(b.cand[c] & naked) {
                        s.eliminations.push((c as u8, d));
                    }
                }
                if !s.eliminations.is_empty() {
                    s.set_cells(sc);
                    out.push(s);
                }
                None
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh walk from `start` on `b`, nothing remembered.
    fn fresh_walk(b: &Board, start: usize, both: Cells, lk: bool) -> (Vec<Vec<u8>>, bool) {
        let mut ls = LoopSearch::new(b, both, lk, Vec::new());
        ls.walk(start, 2, 0, usize::MAX, b.cand[start]);
        let found = ls.found.iter().map(|(p, n)| p[..*n].to_vec()).collect();
        (found, ls.truncated)
    }

    /// Along every golden path, in both flavours, each start's walk taken from what the thread
    /// remembers of earlier states finds the loops, in the order, that a fresh walk finds.
    #[test]
    fn remembered_walks_find_what_fresh_walks_find() {
        use crate::rate::tests::golden_paths;
        let (mut reused, mut walks_with_loops, mut flavours_differ) = (0, 0, 0);
        for (_, states) in golden_paths() {
            for (b, _) in &states {
                // Both flavours on each state, so that a walk remembered for one meets the other.
                for lk in [false, true] {
                    for start in cells(b.bivalue()) {
                        let both = holding_both(b, b.cand[start]);
                        if count(both) < 4 {
                            continue;
                        }
                        let want = fresh_walk(b, start, both, lk);
                        let got = WALKS.with_borrow_mut(|walks| {
                            let w = &mut walks[start];
                            reused += w.remembers(&walk_input(b, both), lk) as usize;
                            let w = w.walk(b, start, both, lk);
                            let found = w.found.iter().map(|(p, n)| p[..*n].to_vec()).collect();
                            (found, w.truncated)
                        });
                        assert_eq!(got, want, "start r{}c{}", start / 9 + 1, start % 9 + 1);
                        walks_with_loops += !want.0.is_empty() as usize;
                        flavours_differ += (want != fresh_walk(b, start, both, !lk)) as usize;
                    }
                }
            }
        }
        assert!(
            reused > 100 && walks_with_loops > 10 && flavours_differ > 0,
            "{reused} {walks_with_loops} {flavours_differ}"
        );
    }

    #[test]
    fn unique_rectangle_type_1_removes_the_pair_from_the_corner() {
        let mut cand = [0x1ffu16; 81];
        // r1c1, r1c4, r2c1 = {1,2}; r2c4 = {1,2,5}: rows 1-2, columns 1 and 4, two boxes.
        cand[0] = bit(1) | bit(2);
        cand[3] = bit(1) | bit(2);
        cand[9] = bit(1) | bit(2);
        cand[12] = bit(1) | bit(2) | bit(5);
        let b = Board::from_parts([0; 81], cand);
        let s = unique_loops(&b, &Changed::ALL).0.unwrap();
        assert_eq!(s.technique, Technique::UniqueLoop1);
        assert_eq!(s.rating, 45);
        assert_eq!(s.eliminations, vec![(12, 1), (12, 2)]);
    }

    #[test]
    fn unique_rectangle_type_2_removes_the_extra_digit_seen_by_both_roofs() {
        let mut cand = [0x1ffu16; 81];
        cand[0] = bit(1) | bit(2);
        cand[3] = bit(1) | bit(2);
        cand[9] = bit(1) | bit(2) | bit(7);
        cand[12] = bit(1) | bit(2) | bit(7);
        let b = Board::from_parts([0; 81], cand);
        let s = unique_loops(&b, &Changed::ALL).0.unwrap();
        assert_eq!(s.technique, Technique::UniqueLoop2);
        // Row 2's other cells lose 7.
        let cells_e: Vec<u8> = s.eliminations.iter().map(|e| e.0).collect();
        assert_eq!(cells_e, vec![10, 11, 13, 14, 15, 16, 17]);
    }

    #[test]
    fn rectangles_within_one_box_are_not_loops() {
        let mut cand = [0x1ffu16; 81];
        cand[0] = bit(1) | bit(2);
        cand[1] = bit(1) | bit(2);
        cand[9] = bit(1) | bit(2);
        cand[10] = bit(1) | bit(2) | bit(5);
        let b = Board::from_parts([0; 81], cand);
        assert!(unique_loops(&b, &Changed::ALL).0.is_none());
    }

    #[test]
    fn unique_rectangle_type_4_removes_the_unlocked_digit_from_the_roof() {
        let mut cand = [0x1ffu16; 81];
        cand[0] = bit(1) | bit(2);
        cand[3] = bit(1) | bit(2);
        cand[9] = bit(1) | bit(2) | bit(5);
        cand[12] = bit(1) | bit(2) | bit(6);
        // Row 2: digit 1 only in the two roof cells.
        for c in [10, 11, 13, 14, 15, 16, 17] {
            cand[c] &= !bit(1);
        }
        let b = Board::from_parts([0; 81], cand);
        let s = unique_loops(&b, &Changed::ALL).0.unwrap();
        assert_eq!(s.technique, Technique::UniqueLoop4);
        assert_eq!(s.eliminations, vec![(9, 2), (12, 2)]);
    }

    /// SE keeps a type 3 hidden set and a naked set that remove the same candidates as two
    /// hints, and picks the easier. On this puzzle's path (made by `generate`, rated by serate
    /// 1.2.1.3 as 6.6/1.2/1.2, its step 30 a type 3 at 4.6), the loop r2c6-r2c7-r7c7-r7c9-r3c9-r3c6 on 2 and 4 has roofs r2c6 {2,4,7}
    /// and r3c6 {2,4,7,9}: in column 6 the naked pair of 7 and 9 (4.7) and the hidden pair of
    /// 2 and 4 in r1c6 and a roof (4.6) both remove 7 from r1c6; serate's step is the 4.6 one.
    #[test]
    fn type_3_keeps_the_easier_of_a_naked_and_a_hidden_set_with_the_same_eliminations() {
        let p: crate::Grid =
            "...3....59..8......5..1.68..97...12....4.8..9.....17...........27..4..6...6..35.7"
                .parse()
                .unwrap();
        let (r, steps) = crate::rate::explain(&p, &crate::rate::Limits::default());
        assert_eq!(r.se_string(), "6.6/1.2/1.2");
        let lc: Cells = [14usize, 15, 23, 26, 60, 62]
            .iter()
            .fold(0, |m, &c| m | 1 << c);
        let mut b = Board::new(&p);
        let mut at = None;
        for (i, s) in steps.iter().enumerate() {
            if s.technique == Technique::UniqueLoop3 && s.eliminations == vec![(5, 7)] {
                at = Some(i);
                break;
            }
            s.apply(&mut b);
        }
        let at = at.expect("the type 3 step on r1c6");
        assert_eq!(steps[at].rating, 46, "{}", steps[at]);
        let v = bit(2) | bit(4);
        let found: Vec<u16> = type3(&b, 46, lc, (14, 23), v, bit(7) | bit(9), false)
            .iter()
            .map(|s| s.rating)
            .collect();
        assert_eq!(found, vec![47, 46]);
    }
}
