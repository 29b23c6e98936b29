//! The Sudoku Explainer difficulty scale: every technique the engine knows, its name and its
//! base rating in tenths (the one table of ratings; variable increments live with the technique).

use crate::error::OptionNames;

/// Defines [`Technique`] and [`Technique::ALL`] from one list of the variants.
macro_rules! techniques {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// A solving technique of the Sudoku Explainer scale.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Technique {
            $($(#[$doc])* $name,)*
        }

        impl Technique {
            /// Every technique, in the enum's order (SE's, the Sukaku Explainer ones among
            /// them).
            pub const ALL: &[Technique] = &[$(Technique::$name,)*];
        }
    };
}

techniques! {
    /// Last empty cell of a house.
    FullHouse,
    /// Only place for a digit in a box.
    HiddenSingleBox,
    /// Only place for a digit in a row or column.
    HiddenSingleLine,
    /// Pointing that immediately leaves a hidden single in another box.
    DirectPointing,
    /// Claiming that immediately leaves a hidden single in another row or column.
    DirectClaiming,
    /// Hidden pair that immediately leaves a hidden single in its house.
    DirectHiddenPair,
    /// Only digit left in a cell.
    NakedSingle,
    /// Hidden triple that immediately leaves a hidden single in its house.
    DirectHiddenTriple,
    /// A digit's box candidates all in one row or column.
    Pointing,
    /// A digit's row or column candidates all in one box.
    Claiming,
    /// Two cells of a house holding the same two candidates.
    NakedPair,
    /// Two-line fish.
    XWing,
    /// Two digits confined to the same two cells of a house.
    HiddenPair,
    /// Three cells of a house with three candidates between them.
    NakedTriple,
    /// Three-line fish.
    Swordfish,
    /// Three digits confined to the same three cells of a house.
    HiddenTriple,
    /// Two strong links of one digit in two rows or two columns (Sukaku Explainer).
    Skyscraper,
    /// Two strong links of one digit in a row and a column (Sukaku Explainer).
    TwoStringKite,
    /// Two strong links of one digit in a line and a box (Sukaku Explainer).
    TurbotCrane,
    /// A skyscraper with a grouped link (Sukaku Explainer).
    GroupedSkyscraper,
    /// A two-string kite with a grouped link (Sukaku Explainer).
    GroupedTwoStringKite,
    /// A turbot crane whose box link is grouped (an empty rectangle; Sukaku Explainer).
    GroupedTurbotCrane,
    /// Bivalue pivot and two bivalue pincers.
    XYWing,
    /// Trivalue pivot and two bivalue pincers.
    XYZWing,
    /// Unique rectangle or loop, type 1.
    UniqueLoop1,
    /// Unique rectangle or loop, type 2.
    UniqueLoop2,
    /// Unique rectangle or loop, type 3 (naked set with the extra candidates).
    UniqueLoop3,
    /// Unique rectangle or loop, type 4.
    UniqueLoop4,
    /// Four cells of a house with four candidates between them.
    NakedQuad,
    /// Four-line fish.
    Jellyfish,
    /// Four digits confined to the same four cells of a house.
    HiddenQuad,
    /// Three strong links of one digit chained by weak links (Sukaku Explainer).
    ThreeStrongLinks,
    /// An almost locked set of three cells and a bivalue cell (Sukaku Explainer).
    WxyzWing,
    /// Bivalue universal grave, type 1.
    Bug1,
    /// Bivalue universal grave, type 2.
    Bug2,
    /// Bivalue universal grave, type 3.
    Bug3,
    /// Bivalue universal grave, type 4.
    Bug4,
    /// An almost locked set of four cells and a bivalue cell (Sukaku Explainer).
    VwxyzWing,
    /// Aligned pair exclusion.
    AlignedPairExclusion,
    /// Bidirectional X-cycle (one digit, strong and weak links).
    XCycle,
    /// Bidirectional Y-cycle (bivalue cells).
    YCycle,
    /// Forcing X-chain (one digit).
    ForcingXChain,
    /// Bidirectional cycle using both kinds of links.
    XYCycle,
    /// Forcing chain using both kinds of links.
    ForcingChain,
    /// Aligned triple exclusion.
    AlignedTripleExclusion,
    /// Nishio forcing chain.
    Nishio,
    /// Multiple forcing chains (cell or region).
    MultipleForcingChain,
    /// Dynamic forcing chains.
    DynamicForcingChain,
    /// Dynamic forcing chains using the simple techniques as extra links.
    DynamicForcingChainPlus,
    /// Nested forcing chains.
    NestedForcingChain,
}

impl Technique {
    /// Whether this is one of SE's "direct" hints: a pointing, claiming, hidden pair or hidden
    /// triple that leads to a single in one house (SE 1.2.1 places the single without applying
    /// the eliminations).
    pub fn is_direct(self) -> bool {
        matches!(
            self,
            Technique::DirectPointing
                | Technique::DirectClaiming
                | Technique::DirectHiddenPair
                | Technique::DirectHiddenTriple
        )
    }

    /// Base rating in tenths (chains and uniqueness add their increments to it).
    pub const fn base(self) -> u16 {
        use Technique::*;
        match self {
            FullHouse => 10,
            HiddenSingleBox => 12,
            HiddenSingleLine => 15,
            DirectPointing => 17,
            DirectClaiming => 19,
            DirectHiddenPair => 20,
            NakedSingle => 23,
            DirectHiddenTriple => 25,
            Pointing => 26,
            Claiming => 28,
            NakedPair => 30,
            XWing => 32,
            HiddenPair => 34,
            NakedTriple => 36,
            Swordfish => 38,
            HiddenTriple => 40,
            Skyscraper => 40,
            TwoStringKite => 41,
            TurbotCrane => 42,
            GroupedSkyscraper | GroupedTwoStringKite | GroupedTurbotCrane => 43,
            XYWing => 42,
            XYZWing => 44,
            UniqueLoop1 | UniqueLoop2 | UniqueLoop3 | UniqueLoop4 => 45,
            NakedQuad => 50,
            Jellyfish => 52,
            HiddenQuad => 54,
            ThreeStrongLinks => 54,
            WxyzWing => 55,
            Bug1 => 56,
            Bug2 | Bug3 | Bug4 => 57,
            VwxyzWing | AlignedPairExclusion => 62,
            XCycle | YCycle => 65,
            ForcingXChain => 66,
            XYCycle | ForcingChain => 70,
            AlignedTripleExclusion => 75,
            Nishio => 75,
            MultipleForcingChain => 80,
            DynamicForcingChain => 85,
            DynamicForcingChainPlus => 90,
            NestedForcingChain => 95,
        }
    }

    /// Human-readable name.
    pub const fn name(self) -> &'static str {
        use Technique::*;
        match self {
            FullHouse => "Full House",
            HiddenSingleBox => "Hidden Single (box)",
            HiddenSingleLine => "Hidden Single (line)",
            DirectPointing => "Direct Pointing",
            DirectClaiming => "Direct Claiming",
            DirectHiddenPair => "Direct Hidden Pair",
            NakedSingle => "Naked Single",
            DirectHiddenTriple => "Direct Hidden Triple",
            Pointing => "Pointing",
            Claiming => "Claiming",
            NakedPair => "Naked Pair",
            XWing => "X-Wing",
            HiddenPair => "Hidden Pair",
            NakedTriple => "Naked Triple",
            Swordfish => "Swordfish",
            HiddenTriple => "Hidden Triple",
            Skyscraper => "Skyscraper",
            TwoStringKite => "Two-string Kite",
            TurbotCrane => "Turbot Crane",
            GroupedSkyscraper => "Grouped Skyscraper",
            GroupedTwoStringKite => "Grouped 2-String Kite",
            GroupedTurbotCrane => "Grouped Turbot Crane",
            XYWing => "XY-Wing",
            XYZWing => "XYZ-Wing",
            UniqueLoop1 => "Unique Rectangle/Loop type 1",
            UniqueLoop2 => "Unique Rectangle/Loop type 2",
            UniqueLoop3 => "Unique Rectangle/Loop type 3",
            UniqueLoop4 => "Unique Rectangle/Loop type 4",
            NakedQuad => "Naked Quad",
            Jellyfish => "Jellyfish",
            HiddenQuad => "Hidden Quad",
            ThreeStrongLinks => "3 Strong-linked Fishes",
            WxyzWing => "WXYZ-Wing",
            VwxyzWing => "VWXYZ-Wing",
            Bug1 => "BUG type 1",
            Bug2 => "BUG type 2",
            Bug3 => "BUG type 3",
            Bug4 => "BUG type 4",
            AlignedPairExclusion => "Aligned Pair Exclusion",
            XCycle => "Bidirectional X-Cycle",
            YCycle => "Bidirectional Y-Cycle",
            ForcingXChain => "Forcing X-Chain",
            XYCycle => "Bidirectional Cycle",
            ForcingChain => "Forcing Chain",
            AlignedTripleExclusion => "Aligned Triple Exclusion",
            Nishio => "Nishio Forcing Chains",
            MultipleForcingChain => "Multiple Forcing Chains",
            DynamicForcingChain => "Dynamic Forcing Chains",
            DynamicForcingChainPlus => "Dynamic Forcing Chains (+)",
            NestedForcingChain => "Nested Forcing Chains",
        }
    }
}

/// SE's length increment for a chain of `complexity` nodes: +0.1 each time the length (nodes
/// minus two) passes 4, 6, 8, 12, 16, 24, 32, 48, ... (alternately x3/2 and x4/3).
pub fn length_increment(complexity: usize) -> u16 {
    let length = complexity.saturating_sub(2);
    let mut ceil = 4usize;
    let mut odd = false;
    let mut added = 0;
    while length > ceil {
        added += 1;
        ceil = if odd { ceil * 4 / 3 } else { ceil * 3 / 2 };
        odd = !odd;
    }
    added
}

/// The highest ER a rating limit or range may name.
pub const MAX_ER: f64 = 20.0;

/// A rating given as a number (`7.2`) in tenths, for a limit: ratings are whole tenths, so a
/// value between two of them is rounded down (`--max-er 4.45` allows 4.4, not 4.5). Errors
/// name what was wrong.
pub fn tenths_at_most(er: f64) -> Result<u16, String> {
    tenths(er, f64::floor)
}

/// The ER range `low..=high` in tenths: `low` rounded up and `high` rounded down to whole
/// tenths, so that no rating outside the range passes. A range that holds no tenth (`4.41..4.49`)
/// or runs backwards is an error.
pub fn tenths_range(low: f64, high: f64) -> Result<(u16, u16), String> {
    let (a, b) = (tenths(low, f64::ceil)?, tenths(high, f64::floor)?);
    if a > b {
        return Err(if low > high {
            format!("the range {low:?}..{high:?} runs backwards")
        } else {
            format!("the range {low:?}..{high:?} holds no rating (ratings are whole tenths)")
        });
    }
    Ok((a, b))
}

/// The named difficulty bands (`generate --difficulty`, Python's `generate(difficulty=...)`):
/// the Sudoku Exchange bands, each an ER range in tenths.
pub const DIFFICULTIES: [(&str, (u16, u16)); 4] = [
    ("easy", (0, 14)),
    ("medium", (15, 24)),
    ("hard", (25, 49)),
    ("diabolical", (50, 200)),
];

/// The ER range (tenths) of the difficulty band `name` (any case), or an error naming the
/// bands.
pub fn difficulty_range(name: &str) -> Result<(u16, u16), String> {
    DIFFICULTIES
        .iter()
        .find(|(band, _)| band.eq_ignore_ascii_case(name))
        .map(|&(_, range)| range)
        .ok_or_else(|| {
            let names: Vec<&str> = DIFFICULTIES.iter().map(|(band, _)| *band).collect();
            format!(
                "unknown difficulty {name:?}; expected one of: {}",
                names.join(", ")
            )
        })
}

/// An ER range to make puzzles in (`generate --er`, Python's `generate(er=...)`): as
/// [`tenths_range`]. Whether the puzzles asked for can rate in it is the generator's to say
/// (`Generator::with_er`), which knows their clue counts and the scale ([`no_step_rates`]).
pub fn puzzle_range(low: f64, high: f64) -> Result<(u16, u16), String> {
    tenths_range(low, high)
}

impl Technique {
    /// Whether only Sukaku Explainer's scale has the technique.
    pub const fn sukaku_only(self) -> bool {
        use Technique::*;
        matches!(
            self,
            Skyscraper
                | TwoStringKite
                | TurbotCrane
                | GroupedSkyscraper
                | GroupedTwoStringKite
                | GroupedTurbotCrane
                | ThreeStrongLinks
                | WxyzWing
                | VwxyzWing
        )
    }
}

/// Why no puzzle (`minimal` ones, with `minimal`) rates in `low..=high` (tenths) on SE's
/// scale, or with `sukaku` on Sukaku Explainer's, in advice that spells the options as `names`
/// does. Below 1.0 only a full grid rates (0.0), so a range reaching below 1.0 is judged only
/// for minimal puzzles, from 1.0 up. Below unique loops (4.5), whose increments and the chains'
/// give every tenth above, a rating is a technique's base rating (`1.3..1.4` holds none: steps
/// rate 1.2 or 1.5). `None` when some puzzle may rate there.
///
/// Two base ratings are left out. Direct claiming (1.9) is never the easiest step: when a
/// claiming in row r1 leaves digit d one place x in row r2, the band's third box holds d in
/// row r3 only, and its pointing leaves x alone in its box, a direct pointing (1.7) that SE
/// looks for first (or x was a hidden single already). That argues the case of a hidden single
/// in a row; for one in a column no argument is written down, but no puzzle of cb001 (21,695),
/// Kaggle's first 1,000 or 3,000 generated ones rates 1.9. And no minimal puzzle of cb001 rates 1.0 (a
/// full house for every step), which only puzzles with many clues reach.
pub fn no_step_rates(
    (low, high): (u16, u16),
    sukaku: bool,
    minimal: bool,
    names: &OptionNames,
) -> Option<String> {
    let first_variable = Technique::UniqueLoop1.base();
    // Below 1.0 only a full grid rates (0.0), which no minimal puzzle is.
    if high >= first_variable || (low < 10 && !minimal) {
        return None;
    }
    let below_one = low < 10;
    let low = low.max(10);
    let reached = |sukaku, minimal| (low..=high).any(|t| rated(t, sukaku, minimal));
    if reached(sukaku, minimal) {
        return None;
    }
    let ratings: Vec<String> = (10..first_variable)
        .filter(|&t| rated(t, sukaku, minimal))
        .map(|t| format!("{}.{}", t / 10, t % 10))
        .collect();
    // What would reach the range: the other scale, or puzzles with more clues than minimal.
    let mut hint = String::new();
    if !sukaku && reached(true, minimal) {
        hint += &format!(
            "; 4.1 and 4.3 are ratings on Sukaku Explainer's scale ({})",
            names.sukaku_scale
        );
    }
    if minimal && reached(sukaku, false) {
        hint += &format!(
            "; 1.0 needs a puzzle with many clues, not minimal ({}78)",
            names.clues_with_value
        );
    }
    if below_one {
        hint.push_str("; below 1.0 only a full grid rates (0.0)");
    }
    Some(format!(
        "holds no rating a {}puzzle reaches: below 4.5 the ratings on {} scale are {}{hint}",
        if minimal { "minimal " } else { "" },
        if sukaku { "Sukaku Explainer's" } else { "SE's" },
        ratings.join(", ")
    ))
}

/// Whether a step rates `t` tenths (below unique loops) on the scale, for a puzzle that may be
/// `minimal`: see [`no_step_rates`].
fn rated(t: u16, sukaku: bool, minimal: bool) -> bool {
    use Technique::{DirectClaiming, FullHouse};
    Technique::ALL.iter().any(|&tech| {
        tech.base() == t
            && (sukaku || !tech.sukaku_only())
            && tech != DirectClaiming
            && !(minimal && tech == FullHouse)
    })
}

/// `er` in tenths, rounded by `round` unless it is a whole tenth already, up to the error of
/// decimal input (`0.3 * 10` is `3.0000000000000004`) and of a rating passed through a float32
/// (`7.2f32` is `7.199999809265137`): within a float32's precision of the tenth. `4.49999`
/// is no tenth (rounded down, 4.4); `4.4999999` is, as a float32 holds it as 4.5.
fn tenths(er: f64, round: fn(f64) -> f64) -> Result<u16, String> {
    if !(0.0..=MAX_ER).contains(&er) {
        return Err(format!("a rating is between 0 and {MAX_ER}, got {er:?}"));
    }
    let t = er * 10.0;
    let near = t.round();
    let tenth = near / 10.0;
    Ok(
        if (er - tenth).abs() <= tenth * f64::from(f32::EPSILON) + 1e-12 {
            near
        } else {
            round(t)
        } as u16,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_increments_follow_the_se_steps() {
        let inc: Vec<u16> = [2, 6, 7, 8, 9, 10, 11, 14, 15, 18, 19, 26, 27]
            .iter()
            .map(|&n| length_increment(n))
            .collect();
        assert_eq!(inc, [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    }

    #[test]
    fn ratings_increase_along_the_simple_techniques() {
        use Technique::*;
        let order = [
            FullHouse,
            HiddenSingleBox,
            HiddenSingleLine,
            DirectPointing,
            NakedSingle,
            Pointing,
            NakedPair,
            XWing,
            HiddenPair,
            NakedTriple,
            Swordfish,
            HiddenTriple,
            XYWing,
            XYZWing,
        ];
        assert!(order.windows(2).all(|w| w[0].base() < w[1].base()));
    }

    #[test]
    fn limits_and_ranges_keep_to_whole_tenths() {
        assert_eq!(tenths_at_most(7.2), Ok(72));
        assert_eq!(tenths_at_most(0.3), Ok(3));
        assert_eq!(tenths_at_most(4.45), Ok(44));
        assert_eq!(tenths_at_most(4.49), Ok(44));
        assert_eq!(tenths_at_most(20.0), Ok(200));
        assert_eq!(tenths_at_most(0.0), Ok(0));
        for bad in [-0.1, 20.01, f64::NAN, f64::INFINITY] {
            assert!(tenths_at_most(bad).is_err(), "{bad}");
        }
        assert_eq!(tenths_range(0.3, 0.3), Ok((3, 3)));
        // Every tenth passed through a float32 (as numpy holds the ratings) is that tenth.
        for t in 0..=200u16 {
            let er = f64::from(f32::from(t) / 10.0);
            assert_eq!(tenths_at_most(er), Ok(t), "{er}");
            assert_eq!(tenths_range(er, er), Ok((t, t)), "{er}");
        }
        assert_eq!(tenths_at_most(7.19), Ok(71));
        // Close below a tenth but beyond a float32's precision of it: not that tenth.
        assert_eq!(tenths_at_most(4.49999), Ok(44));
        assert_eq!(tenths_at_most(4.499999), Ok(44));
        assert_eq!(tenths_at_most(f64::from(4.5f32) - 1e-9), Ok(45));
        assert_eq!(puzzle_range(0.0, 0.5), Ok((0, 5)));
        let why = |range, sukaku, minimal| no_step_rates(range, sukaku, minimal, &OptionNames::CLI);
        assert_eq!(why((11, 12), false, true), None);
        assert_eq!(why((44, 45), false, true), None);
        assert_eq!(why((45, 45), false, true), None);
        // Below 1.0 only a full grid rates, which a minimal puzzle never is.
        let below_one = why((5, 11), false, true).unwrap();
        assert!(
            below_one.ends_with("; below 1.0 only a full grid rates (0.0)"),
            "{below_one}"
        );
        assert_eq!(why((5, 11), false, false), None);
        assert_eq!(why((5, 12), false, true), None);
        // Sukaku Explainer's two-string kite (4.1) and grouped turbot fish (4.3).
        assert_eq!(why((41, 41), true, true), None);
        assert_eq!(why((43, 43), true, true), None);
        // Full houses alone: only a puzzle with many clues.
        assert_eq!(why((10, 11), false, false), None);
        let full_houses = why((10, 11), false, true).unwrap();
        assert!(
            full_houses.ends_with("not minimal (--clues 78)"),
            "{full_houses}"
        );
        let kite = why((41, 41), false, true).unwrap();
        assert!(kite.ends_with("(--scale sukaku)"), "{kite}");
        for (low, high) in [
            (11, 11),
            (13, 14),
            (18, 19),
            (21, 22),
            (39, 39),
            (41, 41),
            (43, 43),
        ] {
            let why = why((low, high), false, true).unwrap();
            assert!(
                why.contains("holds no rating a minimal puzzle reaches"),
                "{why}"
            );
            assert!(
                why.contains(
                    "1.2, 1.5, 1.7, 2.0, 2.3, 2.5, 2.6, 2.8, 3.0, 3.2, 3.4, 3.6, 3.8, 4.0, 4.2, 4.4"
                ),
                "{why}"
            );
        }
        let sukaku = why((13, 14), true, false).unwrap();
        assert!(sukaku.ends_with("are 1.0, 1.2, 1.5, 1.7, 2.0, 2.3, 2.5, 2.6, 2.8, 3.0, 3.2, 3.4, 3.6, 3.8, 4.0, 4.1, 4.2, 4.3, 4.4"), "{sukaku}");
        assert_eq!(puzzle_range(0.0, 1.0), Ok((0, 10)));
        assert_eq!(tenths_range(4.41, 4.59), Ok((45, 45)));
        assert_eq!(tenths_range(7.0, 9.0), Ok((70, 90)));
        assert_eq!(tenths_range(2.25, 4.99), Ok((23, 49)));
        assert!(tenths_range(4.41, 4.49)
            .unwrap_err()
            .contains("holds no rating"));
        assert!(tenths_range(5.0, 4.0).unwrap_err().contains("backwards"));
        // Every value a user may type for a whole tenth stays that tenth, either way.
        for t in 0..=200u16 {
            let er: f64 = format!("{}.{}", t / 10, t % 10).parse().unwrap();
            assert_eq!(tenths_at_most(er), Ok(t));
            assert_eq!(tenths_range(er, er), Ok((t, t)));
        }
    }
}
