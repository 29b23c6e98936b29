//! The techniques Sukaku Explainer 1.15.10 adds to SE's scale by default (the `--scale sukaku`
//! rules): turbot fish (skyscraper, two-string kite, turbot crane and their grouped forms),
//! three strong-linked fishes, and the WXYZ- and VWXYZ-wings. Each rule collects every hint and
//! takes the first in Sukaku Explainer's order (rating, then more eliminations, then its name
//! suffix, then discovery order), as that solver applies them.

use super::board::{cells, digits, places, Board, Cells, House, HOUSES, HOUSE_CELLS, PEERS};
use super::changed::Changed;
use super::scale::Technique;
use super::Step;

/// Sukaku Explainer's region kinds, in its numbering: boxes, rows, columns.
const BOX: u8 = 0;
const ROW: u8 = 1;
const COL: u8 = 2;

/// The cell at local index `i` (0-8) of region `r` of kind `kind`: boxes row by row, rows left
/// to right, columns top to bottom (Sukaku Explainer's order is [`HOUSE_CELLS`]').
fn region_cell(kind: u8, r: usize, i: usize) -> usize {
    HOUSE_CELLS[house(kind, r)][i] as usize
}

/// Our house index of region `r` of kind `kind`.
fn house(kind: u8, r: usize) -> House {
    match kind {
        BOX => 18 + r,
        ROW => r,
        _ => 9 + r,
    }
}

/// The local places (bits 0-8, [`region_cell`] order) of digit `d` in region `r` of kind `kind`.
fn local_places(b: &Board, d: u8, kind: u8, r: usize) -> u16 {
    places(b.pos[d as usize - 1], house(kind, r))
}

/// One end of a (possibly grouped) strong link: a representative cell and up to two more.
#[derive(Clone, Copy, Debug)]
struct End {
    rep: usize,
    more: [Option<usize>; 2],
}

impl End {
    fn cell(c: usize) -> End {
        End {
            rep: c,
            more: [None, None],
        }
    }
    /// The cells of a local set `m` of region `r`: the first as representative.
    fn group(kind: u8, r: usize, m: u16) -> End {
        let mut it = (0..9).filter(|i| m >> i & 1 != 0);
        let rep = region_cell(kind, r, it.next().expect("a non-empty group"));
        let more = [
            it.next().map(|i| region_cell(kind, r, i)),
            it.next().map(|i| region_cell(kind, r, i)),
        ];
        End { rep, more }
    }
    /// Every cell of the end.
    fn all(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.rep).chain(self.more.iter().flatten().copied())
    }
    fn set(&self) -> Cells {
        self.all().fold(0, |s, c| s | 1 << c)
    }
}

/// A strong link of one digit in one region: one of its ends holds the digit.
#[derive(Clone, Copy, Debug)]
struct Link {
    a: End,
    b: End,
    /// An empty-rectangle box or a line whose places lie in two of its box segments.
    grouped: bool,
}

/// Local masks of a box's cross around heart `e`: the heart's column, its row (both without
/// the heart), and the four cells in neither.
fn box_cross(e: usize) -> (u16, u16, u16) {
    let (hr, hc) = (e / 3, e % 3);
    let (mut col, mut row, mut rest) = (0, 0, 0);
    for i in 0..9 {
        if i == e {
            continue;
        }
        if i % 3 == hc {
            col |= 1 << i;
        } else if i / 3 == hr {
            row |= 1 << i;
        } else {
            rest |= 1 << i;
        }
    }
    (col, row, rest)
}

/// A line's box segments when segment `e` is the empty one: the two others, in order.
fn line_blades(e: usize) -> (u16, u16, u16) {
    let seg = |s: usize| 0b111u16 << (3 * s);
    let (x, y) = match e {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    (seg(x), seg(y), seg(e))
}

/// The strong links of digit `d` in region `r` of kind `kind`, as Sukaku Explainer forms them:
/// two places, or (three to six places, five in a box) a grouped link. A grouped region uses
/// its first empty-rectangle heart (box) or first empty segment (line), and yields one link
/// per blade of a single cell, or one link between its two blades when neither is single.
fn links(b: &Board, d: u8, kind: u8, r: usize) -> [Option<Link>; 2] {
    let p = local_places(b, d, kind, r);
    let n = p.count_ones();
    let none = [None, None];
    if !(2..=6).contains(&n) || (kind == BOX && n > 5) {
        return none;
    }
    if n == 2 {
        let lo = p.trailing_zeros() as usize;
        let hi = 15 - p.leading_zeros() as usize;
        let link = Link {
            a: End::cell(region_cell(kind, r, lo)),
            b: End::cell(region_cell(kind, r, hi)),
            grouped: false,
        };
        return [Some(link), None];
    }
    let tries = if kind == BOX { 9 } else { 3 };
    let Some((e, b1, b2)) = (0..tries).find_map(|e| {
        let (b1, b2, empty) = if kind == BOX {
            box_cross(e)
        } else {
            line_blades(e)
        };
        (p & empty == 0).then_some((e, p & b1, p & b2))
    }) else {
        return none;
    };
    if b1 == 0 || b2 == 0 {
        return none;
    }
    // The far side of a single-cell blade: the heart with the other blade (box), or the
    // other blade (line).
    let far = |m: u16| {
        if kind == BOX {
            let g = End::group(kind, r, m);
            End {
                rep: region_cell(kind, r, e),
                more: [Some(g.rep), g.more[0]],
            }
        } else {
            End::group(kind, r, m)
        }
    };
    let (s1, s2) = (b1.count_ones() == 1, b2.count_ones() == 1);
    let mut out = [None, None];
    if s1 || s2 {
        if s1 {
            out[0] = Some(Link {
                a: End::group(kind, r, b1),
                b: far(b2),
                grouped: true,
            });
        }
        if s2 {
            out[1] = Some(Link {
                a: End::group(kind, r, b2),
                b: far(b1),
                grouped: true,
            });
        }
    } else {
        out[0] = Some(Link {
            a: End::group(kind, r, b1),
            b: End::group(kind, r, b2),
            grouped: true,
        });
    }
    out
}

/// The region (kind, index) the two bridge ends share, looked for as Sukaku Explainer does:
/// a column, then a row, then a box, holding every cell of both ends.
fn shared_region(x: &End, y: &End) -> Option<(u8, usize)> {
    let all = x.set() | y.set();
    let col = x.rep % 9;
    if all & !HOUSES[9 + col] == 0 {
        return Some((COL, col));
    }
    let row = x.rep / 9;
    if all & !HOUSES[row] == 0 {
        return Some((ROW, row));
    }
    let bx = (row / 3) * 3 + col / 3;
    if all & !HOUSES[18 + bx] == 0 {
        return Some((BOX, bx));
    }
    None
}

/// The cells that see every cell of `e`.
fn seen_by_all(e: &End) -> Cells {
    e.all().fold(super::board::ALL, |s, c| s & PEERS[c])
}

/// Strong links by digit, region kind and region.
type LinkTables<T> = [[[[Option<T>; 2]; 9]; 3]; 9];

/// The strong links `of` gives each region, for every digit that changed (the others stay
/// empty: their hints cannot have changed either).
fn link_tables<T: Copy>(
    b: &Board,
    changed: &Changed,
    of: fn(&Board, u8, u8, usize) -> [Option<T>; 2],
) -> LinkTables<T> {
    let mut tables = [[[[None; 2]; 9]; 3]; 9];
    for d in (1..=9u8).filter(|&d| changed.digit(d)) {
        for kind in [BOX, ROW, COL] {
            for r in 0..9 {
                tables[d as usize - 1][kind as usize][r] = of(b, d, kind, r);
            }
        }
    }
    tables
}

/// Which turbot fish a hint is, from its regions' kinds and whether each link is grouped.
fn turbot_technique(base: u8, cover: u8, g1: bool, g2: bool) -> Technique {
    if (g1 && base == BOX) || (g2 && cover == BOX) {
        Technique::GroupedTurbotCrane
    } else if (g1 || g2) && base == cover {
        Technique::GroupedSkyscraper
    } else if g1 || g2 {
        Technique::GroupedTwoStringKite
    } else if base == BOX || cover == BOX {
        Technique::TurbotCrane
    } else if base == cover {
        Technique::Skyscraper
    } else {
        Technique::TwoStringKite
    }
}

/// The first hint of a rule by Sukaku Explainer's order: rating, more eliminations, then the
/// name suffix (ascending or, for the wings, descending), then discovery.
struct First {
    best: Option<((u16, std::cmp::Reverse<u32>), Suffix, Step)>,
    suffix_descending: bool,
}

/// A hint's name suffix as Sukaku Explainer compares it (as text).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Suffix([u8; 8], usize);

impl Suffix {
    fn of(parts: &[u32]) -> Suffix {
        let mut s = [0u8; 8];
        let mut n = 0;
        for &p in parts {
            for ch in p.to_string().bytes() {
                // Suffixes are at most four characters (a wing's: 1, 1 and up to 2).
                debug_assert!(n < s.len());
                s[n] = ch;
                n += 1;
            }
        }
        Suffix(s, n)
    }
    fn text(&self) -> &[u8] {
        &self.0[..self.1]
    }
}

impl First {
    fn new(suffix_descending: bool) -> First {
        First {
            best: None,
            suffix_descending,
        }
    }
    /// Offers a hint; an earlier one that sorts the same stays.
    fn offer(&mut self, step: Step, suffix: Suffix) {
        let key = (
            step.rating,
            std::cmp::Reverse(step.eliminations.len() as u32),
        );
        let better = match &self.best {
            None => true,
            Some((k, s, _)) => {
                key < *k
                    || key == *k
                        && if self.suffix_descending {
                            suffix.text() > s.text()
                        } else {
                            suffix.text() < s.text()
                        }
            }
        };
        if better {
            self.best = Some((key, suffix, step));
        }
    }
    fn step(self) -> Option<Step> {
        self.best.map(|(_, _, s)| s)
    }
}

/// Turbot fish: two strong links of one digit in two regions with no place in common, one end
/// of each seeing (sharing a third region with) one end of the other; the digit leaves every
/// cell that sees both far ends (every cell of a grouped end) outside the two regions.
/// Skyscraper (two rows or two columns) 4.0, two-string kite (a column and a row) 4.1, turbot
/// crane (a line and a box) 4.2, any grouped link 4.3.
///
/// A digit whose places did not change since the rule last found nothing is skipped: its
/// hints depend on its places only.
pub fn turbot_fish(b: &Board, changed: &Changed) -> Option<Step> {
    const SETS: [(u8, u8); 5] = [(ROW, ROW), (COL, COL), (COL, ROW), (ROW, BOX), (COL, BOX)];
    let mut first = First::new(false);
    let tables = link_tables(b, changed, links);
    for (base, cover) in SETS {
        for d in (1..=9u8).filter(|&d| changed.digit(d)) {
            let pos = b.pos[d as usize - 1];
            let table = &tables[d as usize - 1];
            for r1 in 0..9 {
                for l1 in table[base as usize][r1].iter().flatten() {
                    let from = if base == cover { r1 + 1 } else { 0 };
                    let cells1 = HOUSES[house(base, r1)] & pos;
                    for r2 in from..9 {
                        if cells1 & HOUSES[house(cover, r2)] & pos != 0 {
                            continue;
                        }
                        for l2 in table[cover as usize][r2].iter().flatten() {
                            turbot_hints(b, d, (base, r1, l1), (cover, r2, l2), &mut first);
                        }
                    }
                }
            }
        }
    }
    first.step()
}

/// Offers the hints of two strong links (base and cover) of digit `d`.
fn turbot_hints(
    b: &Board,
    d: u8,
    (base, r1, l1): (u8, usize, &Link),
    (cover, r2, l2): (u8, usize, &Link),
    first: &mut First,
) {
    let regions = HOUSES[house(base, r1)] | HOUSES[house(cover, r2)];
    for i in 0..2 {
        let (start, bridge1) = if i == 0 { (l1.a, l1.b) } else { (l1.b, l1.a) };
        for j in 0..2 {
            let (bridge2, end) = if j == 0 { (l2.a, l2.b) } else { (l2.b, l2.a) };
            let Some(shared) = shared_region(&bridge1, &bridge2) else {
                continue;
            };
            if shared == (base, r1) || shared == (cover, r2) {
                continue;
            }
            let mut victims = PEERS[start.rep] & PEERS[end.rep];
            if l1.grouped {
                victims &= seen_by_all(&start);
            }
            if l2.grouped {
                victims &= seen_by_all(&end);
            }
            victims &= !regions & !(1u128 << start.rep) & !(1u128 << end.rep);
            let e = victims & b.pos[d as usize - 1];
            if e == 0 {
                continue;
            }
            let tech = turbot_technique(base, cover, l1.grouped, l2.grouped);
            let mut step = Step::eliminate(
                tech,
                d,
                e,
                start.set() | bridge1.set() | bridge2.set() | end.set(),
            );
            step.rating = tech.base();
            let grouped = l1.grouped as u32 + l2.grouped as u32;
            let suffix = Suffix::of(&[grouped / 2, grouped.min(1)]);
            first.offer(step, suffix);
        }
    }
}

/// WXYZ-wing (`size` 3) and VWXYZ-wing (`size` 4): an almost locked set of `size` cells that
/// see each other (`size` + 1 digits) and a bivalue cell xz whose two digits it holds; a digit
/// of the bivalue cell is restricted when every set cell holding it sees the bivalue cell.
/// With x restricted, z leaves every cell seeing the bivalue cell and the set's z cells; with
/// both restricted (doubly linked), x and z both go that way, and each other digit of the set
/// leaves every cell seeing the set's cells that hold it. Rated 5.5 (5.6 when the set's
/// largest cell has three candidates) and 6.2 + 0.1 x (2 - |3 - largest|).
///
/// Only wings with a changed cell (in the set or the bivalue cell) are offered: the others
/// were there when the rule last found nothing, with at least today's eliminations.
pub fn als_wing(b: &Board, size: usize, changed: &Changed) -> Option<Step> {
    let mut first = First::new(true);
    let mut set = [0usize; 4];
    let w = Wing { b, size, changed };
    w.grow(&mut set, 0, 0, &mut first);
    first.step()
}

/// One search for wings with sets of `size` cells.
struct Wing<'a> {
    b: &'a Board,
    size: usize,
    changed: &'a Changed,
}

impl Wing<'_> {
    /// Extends the set's first `n` cells (candidates `union`) in ascending cell order.
    fn grow(&self, set: &mut [usize; 4], n: usize, union: u16, first: &mut First) {
        let (b, size) = (self.b, self.size);
        let pool = if n == 0 {
            b.empty
        } else {
            let after = !((2u128 << set[n - 1]) - 1);
            set[..n].iter().fold(after & b.empty, |s, &c| s & PEERS[c])
        };
        for c in cells(pool) {
            let m = b.cand[c];
            let u = union | m;
            let k = m.count_ones() as usize;
            if k < 2 || (n == 0 && k > size + 1) || u.count_ones() as usize > size + 1 {
                continue;
            }
            set[n] = c;
            if n + 1 < size {
                self.grow(set, n + 1, u, first);
            } else if u.count_ones() as usize == size + 1 {
                self.hints(&set[..size], u, first);
            }
        }
    }

    /// Offers the hints of the almost locked set `set` (candidates `union`) with each bivalue cell
    /// that sees one of its cells and holds two of its digits.
    fn hints(&self, set: &[usize], union: u16, first: &mut First) {
        let b = self.b;
        let set_cells: Cells = set.iter().fold(0, |s, &c| s | 1 << c);
        let range = set.iter().fold(0, |s, &c| s | PEERS[c]) & !set_cells;
        let holding = |d: u8| -> Cells {
            set.iter()
                .filter(|&&c| b.cand[c] & super::board::bit(d) != 0)
                .fold(0, |s, &c| s | 1 << c)
        };
        let largest = set
            .iter()
            .map(|&c| b.cand[c].count_ones())
            .max()
            .unwrap_or(0);
        let total: u32 = set.iter().map(|&c| b.cand[c].count_ones()).sum();
        let (tech, rating) = if set.len() == 3 {
            (
                Technique::WxyzWing,
                56 - (3i32 - largest as i32).unsigned_abs() as u16,
            )
        } else {
            (
                Technique::VwxyzWing,
                64 - (3i32 - largest as i32).unsigned_abs() as u16,
            )
        };
        for yz in cells(range & b.bivalue()) {
            let m = b.cand[yz];
            if m & union != m || !self.changed.cells_in(set_cells | 1 << yz) {
                continue;
            }
            let mut ds = digits(m);
            let (x, z) = (ds.next().unwrap(), ds.next().unwrap());
            let restricted = |d: u8| holding(d) & !PEERS[yz] == 0;
            let (xr, zr) = (restricted(x), restricted(z));
            let double = xr && zr;
            // The digits the hint removes, with where from.
            let mut elims: Vec<(u8, Cells)> = Vec::new();
            let strong = |d: u8| {
                cells(holding(d)).fold(PEERS[yz], |s, c| s & PEERS[c])
                    & !set_cells
                    & b.pos[d as usize - 1]
            };
            if double {
                for w in digits(union & !m) {
                    let e = cells(holding(w)).fold(super::board::ALL, |s, c| s & PEERS[c])
                        & !set_cells
                        & !(1u128 << yz)
                        & b.pos[w as usize - 1];
                    elims.push((w, e));
                }
                elims.push((x, strong(x)));
                elims.push((z, strong(z)));
            } else if xr {
                elims.push((z, strong(z)));
            } else if zr {
                elims.push((x, strong(x)));
            } else {
                continue;
            }
            let mut step = Step::new(tech);
            for &(d, e) in &elims {
                for c in cells(e) {
                    step.eliminations.push((c as u8, d));
                }
            }
            if step.eliminations.is_empty() {
                continue;
            }
            step.eliminations.sort_unstable();
            step.rating = rating;
            step.set_cells(set_cells | 1 << yz);
            // The doubly linked name stays only when a weak digit or both strong ones go.
            let weak = double && elims[..elims.len() - 2].iter().any(|&(_, e)| e != 0);
            let both = double && elims[elims.len() - 2].1 != 0 && elims[elims.len() - 1].1 != 0;
            let links = if weak || both { 2 } else { 1 };
            first.offer(step, Suffix::of(&[links, largest, total]));
        }
    }
}

/// A strong link as the strong-link chains form it: two ends, each a cell and at most one more
/// cell of its group.
#[derive(Clone, Copy, Debug)]
struct SLink {
    ends: [(usize, Option<usize>); 2],
    grouped: bool,
    /// For each end, the houses (bit per house index) that hold all of its cells.
    houses: [u32; 2],
}

impl SLink {
    fn new(ends: [(usize, Option<usize>); 2], grouped: bool) -> SLink {
        let of = |(c, more): (usize, Option<usize>)| {
            let hs = |c: usize| {
                super::board::houses_of(c)
                    .iter()
                    .fold(0u32, |m, &h| m | 1 << h)
            };
            hs(c) & more.map_or(u32::MAX, hs)
        };
        SLink {
            ends,
            grouped,
            houses: [of(ends[0]), of(ends[1])],
        }
    }

    /// The house holding end `i` of this link and end `j` of `other`, as Sukaku Explainer
    /// picks it: the column of this end's cell, then its row, then its box.
    fn join(&self, i: usize, other: &SLink, j: usize) -> Option<House> {
        let common = self.houses[i] & other.houses[j];
        let c = self.ends[i].0;
        [9 + c % 9, c / 9, 18 + (c / 27) * 3 + (c % 9) / 3]
            .into_iter()
            .find(|&h| common >> h & 1 != 0)
    }

    /// Whether some end of this link and some end of `other` share a house.
    fn meets(&self, other: &SLink) -> bool {
        (self.houses[0] | self.houses[1]) & (other.houses[0] | other.houses[1]) != 0
    }
}

/// Local masks of the empty part and the two blades of a box's configuration `e`: an empty
/// rectangle around heart `e` (0-8), or two of its rows (9-11) or columns (12-14).
fn box_config(e: usize) -> (u16, u16, u16) {
    const LINES: [(usize, usize, usize); 6] = [
        (2, 0, 1),
        (1, 0, 2),
        (0, 1, 2),
        (2, 0, 1),
        (1, 0, 2),
        (0, 1, 2),
    ];
    if e < 9 {
        let (col, row, rest) = box_cross(e);
        return (rest, col, row);
    }
    let (empty, b1, b2) = LINES[e - 9];
    let line = |k: usize| -> u16 {
        if e < 12 {
            0b111 << (3 * k)
        } else {
            0b001_001_001 << k
        }
    };
    (line(empty), line(b1), line(b2))
}

/// The strong links of digit `d` in region `r` of kind `kind` for the strong-link chains:
/// two places (not two of a box in one line), or a grouped link (three to six places) by the
/// region's first configuration whose empty part holds none of them.
fn chain_links(b: &Board, d: u8, kind: u8, r: usize) -> [Option<SLink>; 2] {
    let p = local_places(b, d, kind, r);
    let n = p.count_ones();
    let none = [None, None];
    if !(2..=6).contains(&n) {
        return none;
    }
    let cell = |i: u32| region_cell(kind, r, i as usize);
    let nth = |m: u16, k: usize| (0..9u32).filter(|i| m >> i & 1 != 0).nth(k).map(cell);
    let same_line = |x: usize, y: usize| x % 9 == y % 9 || x / 9 == y / 9;
    if n == 2 {
        let (x, y) = (nth(p, 0).unwrap(), nth(p, 1).unwrap());
        if kind == BOX && same_line(x, y) {
            return none;
        }
        let link = SLink::new([(x, None), (y, None)], false);
        return [Some(link), None];
    }
    let tries = if kind == BOX { 15 } else { 3 };
    let found = (0..tries).filter(|&e| e < 9 || n >= 4).find_map(|e| {
        let (empty, b1, b2) = if kind == BOX {
            box_config(e)
        } else {
            let (b1, b2, empty) = line_blades(e);
            (empty, b1, b2)
        };
        (p & empty == 0).then_some((e, p & b1, p & b2))
    });
    let Some((e, b1, b2)) = found else {
        return none;
    };
    if b1 == 0 || b2 == 0 {
        return none;
    }
    let link =
        |a: (usize, Option<usize>), b: (usize, Option<usize>)| Some(SLink::new([a, b], true));
    let (s1, s2) = (b1.count_ones() == 1, b2.count_ones() == 1);
    let first = |m: u16| nth(m, 0).unwrap();
    // The far end of a single-cell blade: the other blade's first cell, with the heart (box)
    // or the blade's second cell (line). Two single-cell blades (a box whose heart holds the
    // digit) give one link, from the second blade.
    let far = |m: u16| {
        let more = if kind == BOX {
            Some(cell(e as u32))
        } else {
            nth(m, 1)
        };
        (first(m), more)
    };
    if s1 && !s2 {
        return [link((first(b1), None), far(b2)), None];
    }
    if s2 {
        return [link((first(b2), None), far(b1)), None];
    }
    let a = (first(b1), nth(b1, 1));
    let bb = (first(b2), nth(b2, 1));
    let mut out = [link(a, bb), None];
    // Four places in a rectangle of two box lines: the link also pairs them the other way.
    if e > 8 && n == 4 && same_line(a.1.unwrap(), bb.1.unwrap()) && same_line(a.0, bb.0) {
        out[1] = link((a.0, Some(bb.0)), (a.1.unwrap(), bb.1));
    }
    out
}

/// The permutations of `0..n` in QuickPerm's order (countdown form), keeping those whose
/// digits read no later than reversed.
fn chain_orders(n: usize) -> Vec<[usize; 3]> {
    let mut q = [0, 1, 2];
    let mut r = [0, 1, 2, 3];
    let mut out = Vec::new();
    let lex = |q: &[usize; 3]| q[..n].iter().le(q[..n].iter().rev());
    if lex(&q) {
        out.push(q);
    }
    let mut s = 1;
    while s < n {
        r[s] -= 1;
        let t = if s % 2 == 1 { r[s] } else { 0 };
        q.swap(t, s);
        if lex(&q) {
            out.push(q);
        }
        s = 1;
        while r[s] == 0 {
            r[s] = s;
            s += 1;
        }
    }
    out
}

/// Sukaku Explainer's name for the kinds along a chain (read in the direction that is not
/// later), up to swapping rows and columns and reversing: "0" box, "1" and "2" lines.
fn chain_name(kinds: &[u8]) -> [u8; 3] {
    let digit = |k: u8| b'0' + k;
    let rev: Vec<u8> = kinds.iter().rev().copied().collect();
    let set: Vec<u8> = if kinds.iter().le(rev.iter()) {
        kinds.to_vec()
    } else {
        rev
    };
    let original: Vec<u8> = set.iter().map(|&k| digit(k)).collect();
    let swap = |k: u8| match k {
        ROW => b'2',
        COL => b'1',
        _ => b'0',
    };
    let current: Vec<u8> = set.iter().map(|&k| swap(k)).collect();
    let reverse: Vec<u8> = set.iter().rev().map(|&k| swap(k)).collect();
    let swapped = current.clone().min(reverse);
    let out = if set.contains(&ROW) {
        original.min(swapped)
    } else {
        set.iter()
            .map(|&k| if k == COL { b'1' } else { digit(k) })
            .collect()
    };
    [out[0], out[1], out[2]]
}

/// Three strong-linked fishes: three strong links of one digit in regions with no place in
/// common, chained end to end by weak links (each pair of joined ends in one region); the
/// digit leaves every cell seeing both free ends (and their grouped cells) outside the link
/// regions and the joining regions. Rated 5.4: +0.3 with a grouped link, otherwise +0.1
/// with a box, +0.2 with both rows and columns. Digits whose places did not change since the
/// rule last found nothing are skipped.
pub fn three_strong_links(b: &Board, changed: &Changed) -> Option<Step> {
    const KINDS: [[u8; 3]; 10] = [
        [BOX, BOX, BOX],
        [BOX, BOX, ROW],
        [BOX, BOX, COL],
        [BOX, ROW, ROW],
        [BOX, ROW, COL],
        [BOX, COL, COL],
        [ROW, ROW, ROW],
        [ROW, ROW, COL],
        [ROW, COL, COL],
        [COL, COL, COL],
    ];
    let orders = chain_orders(3);
    let mut first = First::new(false);
    let tables = link_tables(b, changed, chain_links);
    for kinds in KINDS {
        for d in (1..=9u8).filter(|&d| changed.digit(d)) {
            let chains = Chains {
                b,
                d,
                table: &tables[d as usize - 1],
                orders: &orders,
            };
            let mut chosen = [(0u8, 0usize, None::<SLink>); 3];
            chains.choose(&kinds, 0, 0, &mut chosen, &mut first);
        }
    }
    first.step()
}

/// The search for strong-link chains of one digit.
struct Chains<'a> {
    b: &'a Board,
    d: u8,
    /// The digit's links, by region kind and index.
    table: &'a [[[Option<SLink>; 2]; 9]; 3],
    orders: &'a [[usize; 3]],
}

/// A chosen link: its region's kind and index, and the link.
type Chosen = (u8, usize, Option<SLink>);

impl Chains<'_> {
    /// Chooses the link of depth `depth` (regions after `from` when its kind repeats the
    /// previous one), then the next, and offers the chains of each full choice.
    fn choose(
        &self,
        kinds: &[u8; 3],
        depth: usize,
        from: usize,
        chosen: &mut [Chosen; 3],
        first: &mut First,
    ) {
        let pos = self.b.pos[self.d as usize - 1];
        let kind = kinds[depth];
        let start = if depth > 0 && kinds[depth - 1] == kind {
            from + 1
        } else {
            0
        };
        let before = chosen[..depth]
            .iter()
            .fold(0, |s, &(k, i, _)| s | HOUSES[house(k, i)]);
        for r in start..9 {
            let region = HOUSES[house(kind, r)];
            if region & before & pos != 0 {
                continue;
            }
            for link in self.table[kind as usize][r].into_iter().flatten() {
                chosen[depth] = (kind, r, Some(link));
                if depth + 1 < 3 {
                    self.choose(kinds, depth + 1, r, chosen, first);
                } else if pos & !(before | region) != 0 {
                    self.hints(chosen, first);
                }
            }
        }
    }

    /// Offers the hints of three chosen links, in every order and direction.
    fn hints(&self, chosen: &[Chosen; 3], first: &mut First) {
        let (b, d) = (self.b, self.d);
        let link = |i: usize| chosen[i].2.expect("a chosen link");
        let regions = chosen
            .iter()
            .fold(0, |s, &(k, i, _)| s | HOUSES[house(k, i)]);
        let grouped = (0..3).filter(|&i| link(i).grouped).count() as u32;
        // A chain's middle link meets both others.
        let meets = |i: usize, j: usize| link(i).meets(&link(j));
        let (m01, m02, m12) = (meets(0, 1), meets(0, 2), meets(1, 2));
        if u8::from(m01) + u8::from(m02) + u8::from(m12) < 2 {
            return;
        }
        for q in self.orders {
            for u in 0..8u32 {
                let dir = |w: usize| (u >> (2 - w) & 1) as usize;
                let mut joins: Cells = 0;
                let mut ok = true;
                for w in 0..2 {
                    match link(q[w]).join(1 - dir(w), &link(q[w + 1]), dir(w + 1)) {
                        Some(h) => joins |= HOUSES[h],
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if !ok {
                    continue;
                }
                let (l0, l2) = (link(q[0]), link(q[2]));
                let start = l0.ends[dir(0)];
                let end = l2.ends[1 - dir(2)];
                let mut victims = PEERS[start.0] & PEERS[end.0];
                if let (true, Some(c)) = (l0.grouped, start.1) {
                    victims &= PEERS[c];
                }
                if let (true, Some(c)) = (l2.grouped, end.1) {
                    victims &= PEERS[c];
                }
                victims &= !(1u128 << start.0) & !(1u128 << end.0) & !regions & !joins;
                let e = victims & b.pos[d as usize - 1];
                if e == 0 {
                    continue;
                }
                let kinds = [chosen[q[0]].0, chosen[q[1]].0, chosen[q[2]].0];
                let name = chain_name(&kinds);
                let rating = Technique::ThreeStrongLinks.base()
                    + if grouped > 0 {
                        3
                    } else if name.contains(&b'0') {
                        1
                    } else if name.contains(&b'2') {
                        2
                    } else {
                        0
                    };
                let pattern = (0..3).fold(0, |s, i| {
                    link(i)
                        .ends
                        .iter()
                        .fold(s, |s, &(x, y)| s | 1u128 << x | y.map_or(0, |y| 1u128 << y))
                });
                let mut step = Step::eliminate(Technique::ThreeStrongLinks, d, e, pattern);
                step.rating = rating;
                let mut suffix = Suffix::of(&[grouped]);
                for ch in name {
                    suffix.0[suffix.1] = ch;
                    suffix.1 += 1;
                }
                first.offer(step, suffix);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::board::bit;

    /// A board whose empty cells all hold 2 and 3 (no pattern in those digits), with digit 1
    /// a candidate exactly at `ones` (row, column).
    fn board(ones: &[(usize, usize)]) -> Board {
        let mut cand = [bit(2) | bit(3); 81];
        for &(r, c) in ones {
            cand[r * 9 + c] |= bit(1);
        }
        Board::from_parts([0; 81], cand)
    }

    fn at(r: usize, c: usize) -> u8 {
        (r * 9 + c) as u8
    }

    #[test]
    fn a_skyscraper_removes_the_digit_seen_by_both_far_ends() {
        // Rows 2 and 6 (r1 and r5 from zero) hold 1 twice each, joined down column 2.
        let b = board(&[(1, 2), (1, 6), (5, 2), (5, 8), (0, 8), (3, 6)]);
        let s = turbot_fish(&b, &Changed::ALL).expect("a skyscraper");
        assert_eq!(s.technique, Technique::Skyscraper);
        assert_eq!(s.rating, 40);
        assert_eq!(s.eliminations, vec![(at(0, 8), 1), (at(3, 6), 1)]);
    }

    #[test]
    fn a_two_string_kite_joins_a_row_and_a_column_in_a_box() {
        // Row 0 holds 1 at c1 and c7; column 0 at r2 and r6: r0c1 and r2c0 share box 0, so
        // r0c7 or r6c0 holds 1, and r6c7 (seeing both) loses it. r6c4 and r4c7 keep row 6 and
        // column 7 from being strong links themselves.
        let b = board(&[(0, 1), (0, 7), (2, 0), (6, 0), (6, 7), (6, 4), (4, 7)]);
        let s = turbot_fish(&b, &Changed::ALL).expect("a kite");
        assert_eq!(s.technique, Technique::TwoStringKite);
        assert_eq!(s.rating, 41);
        assert_eq!(s.eliminations, vec![(at(6, 7), 1)]);
    }

    #[test]
    fn a_digit_that_did_not_change_is_not_searched_again() {
        let b = board(&[(1, 2), (1, 6), (5, 2), (5, 8), (0, 8), (3, 6)]);
        let before = b.pos;
        // Nothing removed since: no digit changed, no hint offered.
        let unchanged = Changed::since(&before, &b);
        assert!(turbot_fish(&b, &unchanged).is_none());
        assert!(three_strong_links(&b, &unchanged).is_none());
    }

    #[test]
    fn a_wxyz_wing_removes_z_seen_by_the_pivot_and_the_set() {
        // The set r0c0 {1,4}, r0c1 {4,5}, r0c2 {1,5,7} (three cells, four digits) and the
        // bivalue cell r1c1 {5,7}: every set cell holding 5 sees r1c1, so either r1c1 is 7 or
        // the set is, and 7 leaves r1c0 and r1c2 (seeing r1c1 and r0c2, the set's 7).
        let mut cand = [bit(2) | bit(3) | bit(6) | bit(8) | bit(9); 81];
        cand[0] = bit(1) | bit(4);
        cand[1] = bit(4) | bit(5);
        cand[2] = bit(1) | bit(5) | bit(7);
        cand[10] = bit(5) | bit(7);
        cand[9] |= bit(7);
        cand[11] |= bit(7);
        let b = Board::from_parts([0; 81], cand);
        let s = als_wing(&b, 3, &Changed::ALL).expect("a WXYZ-wing");
        assert_eq!(s.technique, Technique::WxyzWing);
        // The set's largest cell has three candidates: 5.6.
        assert_eq!(s.rating, 56);
        assert_eq!(s.eliminations, vec![(at(1, 0), 7), (at(1, 2), 7)]);
    }

    #[test]
    fn chains_are_tried_in_quickperms_order_read_one_way() {
        assert_eq!(chain_orders(3), vec![[0, 1, 2], [1, 0, 2], [0, 2, 1]]);
    }

    #[test]
    fn chain_names_ignore_direction_and_swapping_rows_with_columns() {
        assert_eq!(&chain_name(&[ROW, ROW, ROW]), b"111");
        assert_eq!(&chain_name(&[COL, COL, COL]), b"111");
        assert_eq!(&chain_name(&[COL, ROW, COL]), b"121");
        assert_eq!(&chain_name(&[ROW, COL, ROW]), b"121");
        assert_eq!(&chain_name(&[BOX, ROW, COL]), b"012");
        assert_eq!(&chain_name(&[COL, ROW, BOX]), b"012");
        assert_eq!(&chain_name(&[ROW, BOX, ROW]), b"101");
    }
}
