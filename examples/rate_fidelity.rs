//! Fidelity and speed of the SE-scale rater against a file of rated puzzles.
//!
//! Input lines: `<81-char puzzle> <ER>` or `<81-char puzzle> <ER>/<EP>/<ED>` (`#` lines are
//! skipped). Prints, per SE ER band, how many puzzles the engine rates exactly and within 0.2,
//! how many it gave up on, the Spearman rank correlation of ER, and puzzles per second.
//!
//! ```text
//! cargo run --release --no-default-features --example rate_fidelity -- FILE [--skip N] [--take N] [--every K] [--diff OUT] [--dump OUT] [--serate1213 | --sukaku]
//! ```
//!
//! The original SE 1.2.1 is followed (see `rate::Flavor`); `--serate1213` follows serate 1.2.1.3
//! instead (`--se121`, the default, is accepted).
//! `--dump OUT` writes every puzzle with the engine's `ER/EP/ED`, status and steps, one a line,
//! so two builds of the engine can be compared rating for rating.
//!
//! ```text
//! ```

use std::io::Write;
use std::time::Instant;

use sudoku_batch::rate::{explain, rate, Flavor, Limits, Status};
use sudoku_batch::Grid;

/// A puzzle with SE's ER and, when given, EP and ED (tenths).
type Rated = (Grid, u16, Option<(u16, u16)>);

fn parse_tenths(s: &str) -> Option<u16> {
    let v: f32 = s.parse().ok()?;
    Some((v * 10.0).round() as u16)
}

fn ranks(v: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| v[a].partial_cmp(&v[b]).unwrap());
    let mut r = vec![0.0; v.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && v[idx[j + 1]] == v[idx[i]] {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            r[idx[k]] = avg;
        }
        i = j + 1;
    }
    r
}

fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let ma = ra.iter().sum::<f64>() / n;
    let mb = rb.iter().sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for i in 0..a.len() {
        sab += (ra[i] - ma) * (rb[i] - mb);
        saa += (ra[i] - ma).powi(2);
        sbb += (rb[i] - mb).powi(2);
    }
    sab / (saa * sbb).sqrt()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().expect(
        "usage: rate_fidelity FILE [--skip N] [--take N] [--every K] [--diff OUT] [--dump OUT] [--serate1213 | --sukaku]",
    );
    let get = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let skip: usize = get("--skip").map_or(0, |s| s.parse().unwrap());
    let take: usize = get("--take").map_or(usize::MAX, |s| s.parse().unwrap());
    let every: usize = get("--every").map_or(1, |s| s.parse().unwrap());
    let mut diff = get("--diff").map(|p| std::fs::File::create(p).unwrap());
    let mut dump =
        get("--dump").map(|p| std::io::BufWriter::new(std::fs::File::create(p).unwrap()));
    let limits = Limits {
        flavor: if args.iter().any(|a| a == "--serate1213") {
            Flavor::Se1213
        } else if args.iter().any(|a| a == "--sukaku") {
            Flavor::Sukaku
        } else {
            Flavor::Se121
        },
        ..Limits::default()
    };

    let text = std::fs::read_to_string(path).unwrap();
    let mut items: Vec<Rated> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut parts = line.split_whitespace();
        let (Some(p), Some(r)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Ok(g) = p.parse::<Grid>() else { continue };
        let mut rs = r.split('/');
        let er = parse_tenths(rs.next().unwrap()).unwrap();
        let epd = match (rs.next(), rs.next()) {
            (Some(a), Some(b)) => Some((parse_tenths(a).unwrap(), parse_tenths(b).unwrap())),
            _ => None,
        };
        items.push((g, er, epd));
    }
    let items: Vec<_> = items
        .into_iter()
        .skip(skip)
        .take(take)
        .step_by(every)
        .collect();

    // Bands by SE ER: upper bounds in tenths.
    let bands: [(u16, u16, &str); 9] = [
        (0, 20, "<=2.0"),
        (21, 30, "2.1-3.0"),
        (31, 40, "3.1-4.0"),
        (41, 50, "4.1-5.0"),
        (51, 60, "5.1-6.0"),
        (61, 70, "6.1-7.0"),
        (71, 80, "7.1-8.0"),
        (81, 90, "8.1-9.0"),
        (91, 200, ">9.0"),
    ];
    let mut stats = [[0usize; 5]; 9]; // n, exact, within 0.2, gave up, ep+ed exact
    let mut band_secs = [0f64; 9];
    let mut se = Vec::new();
    let mut mine = Vec::new();
    let start = Instant::now();
    let mut results = Vec::with_capacity(items.len());
    let mut times = Vec::with_capacity(items.len());
    for (g, _, _) in &items {
        let t = Instant::now();
        results.push(rate(g, &limits));
        times.push(t.elapsed().as_secs_f64());
    }
    let secs = start.elapsed().as_secs_f64();
    for (((g, er, epd), r), secs) in items.iter().zip(&results).zip(&times) {
        let band = bands.iter().position(|b| *er >= b.0 && *er <= b.1).unwrap();
        band_secs[band] += secs;
        let s = &mut stats[band];
        s[0] += 1;
        if r.status != Status::Rated {
            s[3] += 1;
        } else {
            if r.er == *er {
                s[1] += 1;
            }
            if r.er.abs_diff(*er) <= 2 {
                s[2] += 1;
            }
        }
        if let Some((ep, ed)) = epd {
            if r.status == Status::Rated && r.er == *er && r.ep == *ep && r.ed == *ed {
                s[4] += 1;
            }
        }
        se.push(*er as f64);
        mine.push(r.er as f64);
        if let Some(f) = dump.as_mut() {
            writeln!(f, "{} {} {:?} {}", g, r.se_string(), r.status, r.steps).unwrap();
        }
        if let Some(f) = diff.as_mut() {
            if r.er != *er || r.status != Status::Rated {
                let (_, steps) = explain(g, &limits);
                let hardest = steps
                    .iter()
                    .find(|s| s.rating == r.er)
                    .map_or("-".to_string(), |s| s.technique.name().to_string());
                writeln!(
                    f,
                    "{} se={:.1} me={:.1} {:?} hardest={}",
                    g,
                    *er as f32 / 10.0,
                    r.er_f32(),
                    r.status,
                    hardest
                )
                .unwrap();
            }
        }
    }
    println!(
        "| SE ER band | puzzles | ER exact | within 0.2 | gave up | ER/EP/ED exact | puzzles/s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let pct = |a: usize, n: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * a as f64 / n as f64
        }
    };
    let mut tot = [0usize; 5];
    for (i, b) in bands.iter().enumerate() {
        let s = stats[i];
        if s[0] == 0 {
            continue;
        }
        for k in 0..5 {
            tot[k] += s[k];
        }
        println!(
            "| {} | {} | {} ({:.1}%) | {} ({:.1}%) | {} | {} | {:.0} |",
            b.2,
            s[0],
            s[1],
            pct(s[1], s[0]),
            s[2],
            pct(s[2], s[0]),
            s[3],
            s[4],
            s[0] as f64 / band_secs[i]
        );
    }
    println!(
        "| all | {} | {} ({:.1}%) | {} ({:.1}%) | {} | {} | {:.0} |",
        tot[0],
        tot[1],
        pct(tot[1], tot[0]),
        tot[2],
        pct(tot[2], tot[0]),
        tot[3],
        tot[4],
        tot[0] as f64 / secs
    );
    println!("Spearman(ER) = {:.4}", spearman(&se, &mine));
    println!(
        "{} puzzles in {:.3} s: {:.0} puzzles/s (one thread)",
        items.len(),
        secs,
        items.len() as f64 / secs
    );
}
