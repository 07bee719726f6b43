//! Frame vectors derived from any spec, never listed by hand: `ackwire vectors --spec FILES
//! --out DIR`.
//!
//! For every frame, walking its lowering:
//!
//! - positive vectors: every field at zero, at the low and the high end of its range and at a
//!   value drawn from the seed (`(frame)/zero`, `min`, `max`, `random`); each field under a
//!   condition present (filled at random, at its low and at its high end) and absent; each
//!   union at each of its variants; each list empty, with one element and long (its count's
//!   largest value, at most [`LONG_LIST`] elements, so that no file grows past a few hundred
//!   kilobytes); each change mask with all its groups selected (a group alone is its field's
//!   `present`); each bucket code at both edges of every bucket; each quaternion with each
//!   component dropped and two others as large as a canonical value allows;
//! - negative vectors, for every field: the frame cut short inside it, and each error kind its
//!   checks can raise (module `faults`); and for the frame, a byte after it.
//!
//! A positive vector's value is the value made, its bytes what the run-time encoder writes for
//! it; a negative vector's expected kind, offset, bit and path are computed from where the
//! encoder put the fault and from the lowering's canonical order, not read back from a
//! decoder. The decoders are then held to them: the Rust codec by the tests, every language's
//! by `ackwire conform`.
//!
//! Everything is a function of the spec and the seed: the random draws of a case come from
//! SplitMix64 seeded by the seed and the case's name, so a case keeps its values when others
//! come or go. Cases are named `<frame>/<path>/<what>`, the path with lists at their first
//! element (`acked/changes[0].pose_full/present`, `acked/(frame)/zero`); a positive vector whose
//! bytes an earlier one of the frame already has is left out.

mod faults;
pub mod gen;
mod nodes;

pub use gen::LONG_LIST;

use super::{render_frame_file, ExpectedError, FrameCase, FrameFile, VectorError};
use crate::interp::encode::encode;
use crate::interp::value::to_json;
use ackwire_codec::rt::ErrorKind;
use ackwire_sim::SplitMix64;
use ackwire_spec::gen::snake_case;
use ackwire_spec::index::Index;
use ackwire_spec::lower::{Lowering, RecordPlan, Wire};
use gen::{count_max, quant_value, quat_canonical, Fill, Scenario, Shape, Want};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The seed `ackwire vectors` derives with unless told otherwise.
pub const DEFAULT_SEED: u64 = 1;

/// The derived vectors of a spec.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// One file per frame, in declaration order.
    pub files: Vec<FrameFile>,
    /// The cases that could not be made, with why (a want the layout cannot meet: a field
    /// within a byte it shares, a count that cannot exceed what is left).
    pub dropped: Vec<Dropped>,
}

/// A case left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// Its name.
    pub name: String,
    /// Why.
    pub why: String,
}

/// The derived vectors of every frame of `low`, drawn with `seed`.
pub fn derive(low: &Lowering<'_>, seed: u64) -> Derived {
    let mut files = Vec::new();
    let mut dropped = Vec::new();
    for (record, _) in low.frames() {
        let Some(plan) = low.plan(&record.name, None) else {
            continue;
        };
        let frame = snake_case(&record.name);
        let mut b = Builder {
            low,
            plan,
            frame: frame.clone(),
            seed,
            cases: Vec::new(),
            seen: BTreeSet::new(),
            dropped: Vec::new(),
        };
        b.frame();
        let file = low
            .index
            .file_of(&record.name)
            .map(|f| {
                Path::new(&f.name)
                    .file_name()
                    .map_or(f.name.clone(), |n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_default();
        files.push(FrameFile {
            frame,
            seed: format!("derived from {file} by `ackwire vectors --seed {seed}`"),
            cases: b.cases,
        });
        dropped.append(&mut b.dropped);
    }
    Derived { files, dropped }
}

/// The builder of one frame's cases.
pub(crate) struct Builder<'a> {
    low: &'a Lowering<'a>,
    plan: &'a RecordPlan<'a>,
    frame: String,
    seed: u64,
    cases: Vec<FrameCase>,
    /// The bytes of the positive cases so far.
    seen: BTreeSet<Vec<u8>>,
    dropped: Vec<Dropped>,
}

impl<'a> Builder<'a> {
    /// `<frame>/<path>/<what>`.
    fn name(&self, path: &str, what: &str) -> String {
        let path = if path.is_empty() { "(frame)" } else { path };
        format!("{}/{path}/{what}", self.frame)
    }

    /// The random source of the case named `name`.
    fn rng(&self, name: &str) -> SplitMix64 {
        // FNV-1a 64 of the name, so that a case's draws depend on it and the seed alone.
        let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        SplitMix64::new(self.seed ^ hash)
    }

    fn drop_case(&mut self, name: &str, why: &str) {
        if !self.cases.iter().any(|c| c.name == name) {
            self.dropped.push(Dropped {
                name: name.to_string(),
                why: why.to_string(),
            });
        }
    }

    fn negative(
        &mut self,
        name: String,
        description: String,
        rule: &str,
        bytes: &[u8],
        error: ExpectedError,
    ) {
        if self.cases.iter().any(|c| c.name == name) {
            return;
        }
        self.dropped.retain(|d| d.name != name);
        self.cases.push(FrameCase {
            basis: None,
            name,
            description,
            seed: rule.to_string(),
            hex: super::hex_spaced(bytes),
            value: None,
            error: Some(error),
        });
    }

    /// A positive case: the value `scenario` makes, its bytes, unless an earlier case has them.
    fn positive(
        &mut self,
        path: &str,
        what: &str,
        description: String,
        rule: &str,
        scenario: Scenario,
    ) {
        let name = self.name(path, what);
        let value = match gen::make(self.low, self.plan, &scenario, self.rng(&name)) {
            Ok(v) => v,
            Err(e) => return self.drop_case(&name, &e.0),
        };
        let bytes = match encode(self.low, self.plan, &value) {
            Ok(b) => b,
            Err(e) => return self.drop_case(&name, &format!("the encoder refuses it: {e:?}")),
        };
        if !self.seen.insert(bytes.clone()) {
            return;
        }
        let json = match to_json(self.low, self.plan, &value) {
            Ok(j) => j,
            Err(e) => return self.drop_case(&name, &e.to_string()),
        };
        self.cases.push(FrameCase {
            basis: None,
            name,
            description,
            seed: rule.to_string(),
            hex: super::hex_spaced(&bytes),
            value: Some(json),
            error: None,
        });
    }

    fn frame(&mut self) {
        let nodes = nodes::nodes(self.low, self.plan);
        self.positive(
            "",
            "zero",
            "every field at zero: bit sets and lists empty, byte strings empty or absent, each union its first variant".into(),
            "WIRE-9 / LANGUAGE.md, Types",
            Scenario::new(Fill::Zero, Shape::Least),
        );
        self.positive(
            "",
            "min",
            "every field at the low end of its range (floats at -MAX), every named bit set, each list with one element".into(),
            "WIRE-9 / LANGUAGE.md, Types",
            Scenario::new(Fill::Min, Shape::Most),
        );
        self.positive(
            "",
            "max",
            "every field at the high end of its range (floats at MAX), every named bit set, each list with one element, each union its last variant".into(),
            "WIRE-9 / LANGUAGE.md, Types",
            Scenario::new(Fill::Max, Shape::Most),
        );
        self.positive(
            "",
            "random",
            "every field, list length, bit and union variant drawn from the seed".into(),
            "WIRE-9 / LANGUAGE.md, Types",
            Scenario::new(Fill::Random, Shape::Random),
        );
        for node in &nodes {
            self.node_positives(node);
        }
        faults::negatives(self, &nodes);
        if self.plan.packed {
            faults::padding_fault(self, "", &[]);
        }
        self.trailing();
    }

    fn node_positives(&mut self, node: &nodes::Node<'_>) {
        let at = faults::describe_where(&node.path);
        let reach = || node.reach.clone();
        if let Some(absent) = &node.absent {
            for (what, fill, how) in [
                ("present", Fill::Random, "other fields drawn from the seed"),
                (
                    "present_min",
                    Fill::Min,
                    "every field at the low end of its range",
                ),
                (
                    "present_max",
                    Fill::Max,
                    "every field at the high end of its range",
                ),
            ] {
                self.positive(
                    &node.path,
                    what,
                    format!("{at} present (its condition holds), {how}"),
                    "WIRE-11 / LANGUAGE.md, Conditions",
                    Scenario::new(fill, Shape::Least).with(reach()),
                );
            }
            self.positive(
                &node.path,
                "absent",
                format!("{at} absent: its condition does not hold"),
                "WIRE-11 / LANGUAGE.md, Conditions",
                Scenario::new(Fill::Zero, Shape::Least).with(absent.clone()),
            );
        }
        match node.wire {
            Wire::Union(u) => {
                let union = self.low.union_plan(u);
                for (i, (tag, record)) in union.variants.iter().enumerate() {
                    let name = snake_case(&record.name);
                    self.positive(
                        &node.path,
                        &name,
                        format!("{at} as variant `{name}` (tag {tag})"),
                        "WIRE-16 / LANGUAGE.md, Unions",
                        Scenario::new(Fill::Random, Shape::Least)
                            .with(reach())
                            .with([(node.path.clone(), Want::Arm(i))]),
                    );
                }
            }
            Wire::Array(a) => {
                let mut long = count_max(node.step.map(|(_, p)| p), a).min(LONG_LIST as u64);
                if let Some((elem, _)) = gen::ascending_of(self.low, a) {
                    long = long.min(gen::ascending_max(elem).saturating_add(1));
                }
                for (what, n, fill, how) in [
                    ("empty", 0, Fill::Random, "no element".to_string()),
                    ("one", 1, Fill::Random, "one element".to_string()),
                    (
                        "long",
                        long as usize,
                        Fill::Zero,
                        format!(
                            "{long} elements, near its limit (the count's largest value, at most {LONG_LIST})"
                        ),
                    ),
                ] {
                    self.positive(
                        &node.path,
                        what,
                        format!("{at} with {how}"),
                        "WIRE-13 / LANGUAGE.md, Types (lists)",
                        Scenario::new(fill, Shape::Least)
                            .with(reach())
                            .with([(node.path.clone(), Want::Len(n))]),
                    );
                }
            }
            Wire::Bits(b) => {
                // A change mask: the bits its record's `select` reads.
                let Some((step, plan)) = node.step else {
                    return;
                };
                let groups = plan
                    .steps
                    .iter()
                    .filter_map(|s| s.field.selector.as_ref())
                    .filter(|sel| sel.mask == step.field.name)
                    .filter_map(|sel| Index::bit_index(b, &sel.bit))
                    .filter(|i| *i < 64)
                    .fold(0u64, |m, i| m | 1 << i);
                if groups.count_ones() >= 2 {
                    self.positive(
                        &node.path,
                        "all_groups",
                        format!(
                            "{at} with every group bit set: each group its select reads is present"
                        ),
                        "WIRE-11 / LANGUAGE.md, Records and frames (select)",
                        Scenario::new(Fill::Random, Shape::Least)
                            .with(reach())
                            .with([(node.path.clone(), Want::SetBits(groups))]),
                    );
                }
            }
            Wire::Bucket(_) | Wire::Quant { .. } => self.bucket_edges(node),
            Wire::Ranged {
                min, max, packed, ..
            } => self.range_edges(node, *min, *max, *packed),
            Wire::Quat { bits } => self.quat_edges(node, *bits),
            _ => {}
        }
    }

    /// A ranged integer at both ends of its range (WIRE-29); the values one past each end are
    /// its negative vectors (`faults`).
    fn range_edges(&mut self, node: &nodes::Node<'_>, min: i64, max: i64, packed: Option<u8>) {
        let at = faults::describe_where(&node.path);
        let carried = match packed {
            Some(width) => format!(", carried as {{}} in {width} bits"),
            None => String::new(),
        };
        for (end, v) in [("min", min), ("max", max)] {
            let how = carried.replace("{}", &(i128::from(v) - i128::from(min)).to_string());
            self.positive(
                &node.path,
                &format!("range_{end}"),
                format!("{at} at {v}, the {end} of its range {min}..={max}{how}"),
                "WIRE-29",
                Scenario::new(Fill::Random, Shape::Least)
                    .with(node.reach.clone())
                    .with([(
                        node.path.clone(),
                        Want::Exact(crate::interp::Value::Int(i128::from(v))),
                    )]),
            );
        }
    }

    /// A bucket code (or a quantized one) at both edges of each of its buckets.
    fn bucket_edges(&mut self, node: &nodes::Node<'_>) {
        let (b, scale) = match node.wire {
            Wire::Bucket(b) => (b, None),
            Wire::Quant { wire, num, den, .. } => match wire.as_ref() {
                Wire::Bucket(b) => (b, Some((*num, *den))),
                _ => return,
            },
            _ => return,
        };
        let at = faults::describe_where(&node.path);
        let k = b.widths.len();
        for (i, (&w, &base)) in b.widths.iter().zip(&b.bases).enumerate() {
            let top = if w >= 64 {
                u64::MAX
            } else {
                base.saturating_add((1u64 << w) - 1)
            }
            .min(b.max_code);
            let edges: &[(&str, u64)] = if top == base {
                &[("", base)]
            } else {
                &[("_low", base), ("_high", top)]
            };
            for &(end, code) in edges {
                let model = if b.signed {
                    i128::from(((code >> 1) as i64) ^ -((code & 1) as i64))
                } else {
                    i128::from(code)
                };
                let value = match scale {
                    None => crate::interp::Value::Int(model),
                    Some((num, den)) => match quant_value(model, num, den) {
                        Some(v) => crate::interp::Value::Float(v),
                        None => continue,
                    },
                };
                self.positive(
                    &node.path,
                    &format!("bucket_{}{end}", i + 1),
                    format!(
                        "{at} at code {code}{}, the {} edge of bucket {} of {k} ({} bits)",
                        if b.signed {
                            format!(" (value {model})")
                        } else {
                            String::new()
                        },
                        if end == "_high" { "high" } else { "low" },
                        i + 1,
                        b.prefix_bits(i) + u64::from(w)
                    ),
                    "WIRE-19 / LANGUAGE.md, bucket(w1, ..., wk)",
                    Scenario::new(Fill::Random, Shape::Least)
                        .with(node.reach.clone())
                        .with([(node.path.clone(), Want::Exact(value))]),
                );
            }
        }
    }

    /// A quaternion with each component dropped, and two of the three sent as large as the
    /// rules allow, of opposite signs.
    fn quat_edges(&mut self, node: &nodes::Node<'_>, bits: u8) {
        let at = faults::describe_where(&node.path);
        let r = (1i64 << (bits - 1)) - 1;
        for largest in 0..4u8 {
            let Some(m) = (0..=r)
                .rev()
                .find(|&m| quat_canonical(bits, largest, [m, 0, -m]))
            else {
                continue;
            };
            let name = ["x", "y", "z", "w"][usize::from(largest)];
            self.positive(
                &node.path,
                &format!("largest_{name}"),
                format!("{at} with {name} dropped and the others {m}, 0, -{m}: as large as the canonical rules allow"),
                "WIRE-20 / LANGUAGE.md, quat(B)",
                Scenario::new(Fill::Random, Shape::Least)
                    .with(node.reach.clone())
                    .with([(
                        node.path.clone(),
                        Want::Exact(crate::interp::Value::Quat(ackwire_codec::rt::SmallestThree {
                            largest,
                            // Within [-R, R], R <= 32767.
                            rest: [m as i16, 0, -m as i16],
                        })),
                    )]),
            );
        }
    }

    /// A byte after the smallest frame.
    fn trailing(&mut self) {
        let name = self.name("", "trailing_bytes");
        let scenario = Scenario::new(Fill::Zero, Shape::Least);
        let bytes = gen::make(self.low, self.plan, &scenario, self.rng(&name))
            .map_err(|e| e.0)
            .and_then(|v| encode(self.low, self.plan, &v).map_err(|e| format!("{e:?}")));
        match bytes {
            Ok(mut bytes) => {
                let at = bytes.len();
                bytes.push(0);
                self.negative(
                    name,
                    "a byte after the frame".into(),
                    faults::rule_of(ErrorKind::TrailingBytes),
                    &bytes,
                    ExpectedError {
                        kind: ErrorKind::TrailingBytes.as_str().to_string(),
                        offset: at,
                        bit: None,
                        path: String::new(),
                    },
                );
            }
            Err(why) => self.drop_case(&name, &why),
        }
    }
}

/// Writes `derived`'s files into `dir` (created when missing), one `<frame>.json` each, and
/// removes any other frame vector file there: the folder then mirrors the spec.
pub fn write_derived(dir: &Path, derived: &Derived) -> Result<Vec<PathBuf>, VectorError> {
    super::write_files(dir, &derived.files)
}

/// Checks a committed derived set in `dir` against the spec: every file byte for byte what
/// [`derive()`] makes with `seed` (none missing, none extra), and every case held by the run-time
/// codec ([`super::verify_case_run_time`]). The failures, in order; `total` the cases checked.
pub fn verify_derived(
    low: &Lowering<'_>,
    dir: &Path,
    seed: u64,
) -> Result<super::Verification, String> {
    let derived = derive(low, seed);
    let mut failures = Vec::new();
    let mut total = 0;
    let on_disk = super::json_files(dir).map_err(|e| e.to_string())?;
    for file in &derived.files {
        let path = dir.join(format!("{}.json", file.frame));
        let want = render_frame_file(file).map_err(|e| e.to_string())?;
        match std::fs::read_to_string(&path) {
            Ok(text) if text == want => {}
            Ok(_) => failures.push(super::Failure {
                name: path.display().to_string(),
                why: format!(
                    "not what --seed {seed} derives from the spec: regenerate it with `ackwire vectors --spec ... --out {}`",
                    dir.parent().unwrap_or(dir).display()
                ),
            }),
            Err(e) => failures.push(super::Failure {
                name: path.display().to_string(),
                why: format!("cannot read it: {e}"),
            }),
        }
    }
    for path in &on_disk {
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if !derived.files.iter().any(|f| f.frame == stem) {
            failures.push(super::Failure {
                name: path.display().to_string(),
                why: "no frame of the spec has this name".to_string(),
            });
        }
    }
    for file in super::read_frames(dir).map_err(|e| e.to_string())? {
        for case in &file.cases {
            total += 1;
            if let Err(why) = super::verify_case_run_time(low, &file.frame, case) {
                failures.push(super::Failure {
                    name: case.name.clone(),
                    why,
                });
            }
        }
    }
    Ok(super::Verification {
        total: total.max(failures.len()),
        failures,
    })
}
