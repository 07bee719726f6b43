//! Machine schemas: a `schema Name for machine { role: Item, ... }` resolved once into the
//! [`MachinePlan`] a binding generator prints from (Rust: `gen::rust::machines`).
//!
//! A schema names which frames of a spec play the seed's roles for the datagram v2 (seed 003),
//! NetBaseline (seed 002) or delta (seed 001) machines. The roles bind by the field names the
//! seeds use (`docs/spec/datagram.md`, `baseline.md`, `delta.md`): the machines read and make
//! exactly those fields, so a role's item must hold them at the widths the machines count in
//! and nothing else they could not fill. What is the layout's own stays free: the kinds, the
//! fields' order, the mask bits' order, whether a frame carries the precision, the widths of a
//! snapshot's counts and gaps.
//!
//! Every misuse is a located diagnostic ([`check`]), at the role's item in the schema: an
//! unknown or missing role, a role given twice, an item that is not declared, and an item of
//! the wrong shape (which field is missing, extra or of another type).

use crate::diag::Diagnostic;
use crate::index::{is_value_field, Decl, Index};
use crate::model::{
    Cond, Count, Field, IntType, Item, Machine, MachineSchema, NameRef, Record, RecordKind, Span,
    Spec, Type,
};
use std::collections::HashMap;

/// A schema resolved: what the generators print.
#[derive(Debug, Clone, PartialEq)]
pub enum MachinePlan {
    /// A datagram v2 schema.
    Datagram(DatagramPlan),
    /// A NetBaseline schema.
    Baseline(BaselinePlan),
    /// A delta schema.
    Delta(DeltaPlan),
}

impl MachinePlan {
    /// The schema's name (the generated marker type).
    pub fn name(&self) -> &str {
        match self {
            MachinePlan::Datagram(p) => &p.name,
            MachinePlan::Baseline(p) => &p.name,
            MachinePlan::Delta(p) => &p.name,
        }
    }
}

/// A frame of a datagram schema that may carry the precision (`precision: f32`).
#[derive(Debug, Clone, PartialEq)]
pub struct Framed {
    /// The frame or record.
    pub name: String,
    /// Whether it carries `precision`.
    pub precision: bool,
}

/// The datagram v2 roles (DG-1 to DG-17).
#[derive(Debug, Clone, PartialEq)]
pub struct DatagramPlan {
    /// The schema's name.
    pub name: String,
    /// Its doc lines.
    pub doc: Vec<String>,
    /// `datagram`: the frame of a tick's updates.
    pub datagram: Framed,
    /// The record of one update (the datagram's `updates` element).
    pub update: String,
    /// The update's mask field and its bit set.
    pub mask: (String, String),
    /// The mask bits under which x, y and z follow (DG-4).
    pub axis_bits: [String; 3],
    /// The mask bit under which the component changes follow.
    pub components_bit: String,
    /// The record of one component change (`type: u8, data: bytes?`; DG-6).
    pub component: String,
    /// `spawn`.
    pub spawn: Framed,
    /// `despawn`.
    pub despawn: String,
    /// `full`.
    pub full: Framed,
    /// The record of one entity of a full frame.
    pub entity: String,
    /// `ack`.
    pub ack: String,
    /// Bytes before the first update at most: `max_offset(datagram.updates)` (DG-7).
    pub max_header_len: u64,
    /// The width of the update's id (`varint(N)`, 64 when unbounded): what the datagram's
    /// ascending list of ids counts in.
    pub id_bits: u8,
}

/// How a snapshot entry carries its slot gap (NB-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// `gap: uN`, always.
    Plain {
        /// N.
        bits: u8,
    },
    /// `wide: bool, gap: uN if !wide, wide_gap: uM if wide`.
    Wide {
        /// N.
        narrow: u8,
        /// M.
        wide: u8,
    },
}

/// One component type of a NetBaseline schema: a `select` arm of the entry.
#[derive(Debug, Clone, PartialEq)]
pub struct BaselineComponent {
    /// The entry's field.
    pub field: String,
    /// Its packed record.
    pub record: String,
    /// The mask bit that selects it (its index is the component's type).
    pub bit: String,
    /// The arm's doc lines.
    pub doc: Vec<String>,
}

/// The NetBaseline roles (NB-1 to NB-10).
#[derive(Debug, Clone, PartialEq)]
pub struct BaselinePlan {
    /// The schema's name.
    pub name: String,
    /// Its doc lines.
    pub doc: Vec<String>,
    /// `snapshot`.
    pub snapshot: String,
    /// The snapshot's packed body field and its record.
    pub body: (String, String),
    /// The record of a lost entity (`slot`, `generation`).
    pub lost: String,
    /// The record of an entry.
    pub entry: String,
    /// How the entry carries its gap.
    pub gap: Gap,
    /// The entry's mask field and its bit set.
    pub mask: (String, String),
    /// The component types, by index.
    pub components: Vec<BaselineComponent>,
    /// `ack`.
    pub ack: String,
    /// `ack_window`: a `u16` constant.
    pub ack_window: String,
    /// `max_lost`: an unsigned constant.
    pub max_lost: String,
    /// Bytes of a snapshot before its body.
    pub header_bytes: u64,
    /// The body's two counts, in bits.
    pub count_bits: u64,
    /// An entry's bits before its components, at their longest.
    pub entry_head_bits: u64,
    /// Bits of a lost entity.
    pub lost_bits: u64,
}

/// The delta roles (DELTA-1, DELTA-2).
#[derive(Debug, Clone, PartialEq)]
pub struct DeltaPlan {
    /// The schema's name.
    pub name: String,
    /// Its doc lines.
    pub doc: Vec<String>,
    /// `plan`.
    pub plan: String,
    /// The plan's flags field and its bit set.
    pub flags: (String, String),
    /// The flag under which `baseline_seq` follows.
    pub baseline_bit: String,
    /// `ack`.
    pub ack: String,
}

/// Every problem of every machine schema of `spec` (empty when each resolves).
pub fn check(spec: &Spec) -> Vec<Diagnostic> {
    let index = Index::new(spec);
    let mut out = Vec::new();
    for (file, m) in schemas(spec) {
        if let Err(mut d) = resolve(m, &index, file) {
            out.append(&mut d);
        }
    }
    out
}

/// The plan of every machine schema of `spec`, in declaration order; one that does not resolve
/// (a spec that failed [`crate::compile`]) is skipped.
pub fn plans(spec: &Spec) -> Vec<MachinePlan> {
    let index = Index::new(spec);
    schemas(spec)
        .filter_map(|(file, m)| resolve(m, &index, file).ok())
        .collect()
}

fn schemas(spec: &Spec) -> impl Iterator<Item = (&str, &MachineSchema)> {
    spec.files.iter().flat_map(|f| {
        f.items.iter().filter_map(move |i| match i {
            Item::Schema(m) => Some((f.name.as_str(), m)),
            _ => None,
        })
    })
}

/// Resolves one schema, or says everything wrong with it.
pub fn resolve(
    m: &MachineSchema,
    index: &Index<'_>,
    file: &str,
) -> Result<MachinePlan, Vec<Diagnostic>> {
    let mut r = Resolver {
        index,
        file,
        out: Vec::new(),
        schema: m,
    };
    let roles = r.roles();
    if !r.out.is_empty() {
        return Err(r.out);
    }
    let plan = match m.machine {
        Machine::Datagram => r.datagram(&roles).map(MachinePlan::Datagram),
        Machine::Baseline => r.baseline(&roles).map(MachinePlan::Baseline),
        Machine::Delta => r.delta(&roles).map(MachinePlan::Delta),
    };
    match plan {
        Some(p) if r.out.is_empty() => Ok(p),
        _ => Err(r.out),
    }
}

/// What a field must be for the machines to read and make it.
#[derive(Debug, Clone, Copy)]
enum Want {
    /// A varint of more than 32 bits: a `u64`.
    Varint64,
    /// A varint of 17 to 32 bits: a `u32`.
    Varint32,
    /// A zigzag of more than 32 bits: an `i64`.
    Zigzag64,
    /// An unsigned integer of exactly this many bits.
    Uint(u8),
    /// An unsigned integer of 17 to 32 bits: a `u32` (a snapshot's wide gap).
    Uint32,
    /// An unsigned integer of at most 8 bits: a `u8` (a snapshot's narrow gap).
    Uint8,
    /// `f32`.
    F32,
    /// `bool`.
    Bool,
    /// `bytes?`.
    OptBytes,
    /// A bit set.
    Bits,
    /// A counted array of records.
    Records,
    /// A counted array of `u64` varints (more than 32 bits).
    Keys,
    /// A packed record.
    Packed,
}

impl Want {
    fn text(self) -> &'static str {
        match self {
            Want::Varint64 => "`varint` (of more than 32 bits)",
            Want::Varint32 => "`varint(N)`, N from 17 to 32",
            Want::Zigzag64 => "`zigzag` (of more than 32 bits)",
            Want::Uint(8) => "`u8`",
            Want::Uint(16) => "`u16`",
            Want::Uint(_) => "`u64`",
            Want::Uint32 => "`uN`, N from 17 to 32",
            Want::Uint8 => "`uN`, N at most 8",
            Want::F32 => "`f32`",
            Want::Bool => "`bool`",
            Want::OptBytes => "`bytes?`",
            Want::Bits => "a bit set",
            Want::Records => "an array of records",
            Want::Keys => "an array of `varint` (of more than 32 bits)",
            Want::Packed => "a packed record",
        }
    }
}

/// Whether the field may be absent from the item, and under what it is present.
#[derive(Debug, Clone, Copy, PartialEq)]
enum When {
    /// Always present.
    Always,
    /// The field may be left out of the item (a datagram's `precision`).
    Optional,
    /// Present under a bit of the mask or flags field (any bit: which one is read from it).
    Bit,
    /// Present when the named bool field is clear (`!wide`).
    Clear,
    /// Present when the named bool field is set (`wide`).
    Set,
}

struct Resolver<'a, 's> {
    index: &'a Index<'s>,
    file: &'a str,
    out: Vec<Diagnostic>,
    schema: &'a MachineSchema,
}

impl<'s> Resolver<'_, 's> {
    fn error(&mut self, span: Span, message: impl Into<String>, label: impl Into<String>) {
        self.out
            .push(Diagnostic::new(self.file, span, message, label));
    }

    /// The roles by name: each known to the machines, given once, and every one given.
    fn roles(&mut self) -> HashMap<&'static str, NameRef> {
        let m = self.schema;
        let known = m.machine.roles();
        let mut given: HashMap<&'static str, NameRef> = HashMap::new();
        for r in &m.roles {
            let Some(&role) = known.iter().find(|k| **k == r.role.name) else {
                self.error(
                    r.role.span,
                    format!(
                        "the {} machines have no role `{}`",
                        m.machine.word(),
                        r.role.name
                    ),
                    format!(
                        "expected one of {}",
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                continue;
            };
            if given.contains_key(role) {
                self.error(
                    r.role.span,
                    format!("role `{role}` is given twice in schema `{}`", m.name),
                    "remove this role",
                );
                continue;
            }
            given.insert(role, r.target.clone());
        }
        for role in known {
            if !given.contains_key(role) {
                self.error(
                    m.name_span,
                    format!("schema `{}` does not give role `{role}`", m.name),
                    format!("expected `{role}: Item` in this schema"),
                );
            }
        }
        given
    }

    /// The record or frame `target` names, of the kind the role needs.
    fn record(&mut self, role: &str, target: &NameRef, frame: bool) -> Option<&'s Record> {
        let Some(r) = self.index.record(&target.name) else {
            self.error(
                target.span,
                format!(
                    "role `{role}` names `{}`, which is not declared",
                    target.name
                ),
                if frame {
                    "expected a frame declared in the spec"
                } else {
                    "expected a record declared in the spec"
                },
            );
            return None;
        };
        if frame && r.kind != RecordKind::Frame {
            self.error(
                target.span,
                format!("`{}` cannot play role `{role}`: it is not a frame", r.name),
                "expected a frame (`frame Name { ... }`)",
            );
            return None;
        }
        Some(r)
    }

    /// Checks that `r`'s value fields are exactly `want` (less those [`When::Optional`] and
    /// left out), of their types and presence, and returns them by name.
    fn shape<'r>(
        &mut self,
        role: &str,
        at: Span,
        r: &'r Record,
        want: &[(&str, Want, When)],
    ) -> Option<HashMap<String, &'r Field>> {
        let errors = self.out.len();
        let mut found = HashMap::new();
        for f in r.fields.iter().filter(|f| is_value_field(r, f)) {
            let Some(&(_, ty, when)) = want.iter().find(|(n, _, _)| *n == f.name) else {
                self.error(
                    at,
                    format!(
                        "`{}` cannot play role `{role}`: the machines have nothing to write in its field `{}`",
                        r.name, f.name
                    ),
                    format!(
                        "expected only the fields {}",
                        want.iter()
                            .map(|(n, _, _)| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                continue;
            };
            if !self.fits(f, ty) {
                self.error(
                    at,
                    format!(
                        "`{}` cannot play role `{role}`: its field `{}` is not {}",
                        r.name,
                        f.name,
                        ty.text()
                    ),
                    format!("expected `{}` to be {}", f.name, ty.text()),
                );
            }
            let presence_ok = match when {
                When::Always | When::Optional => f.cond.is_none() && f.selector.is_none(),
                When::Bit => matches!(&f.cond, Some(Cond::Bit { negated: false, .. })),
                When::Clear => matches!(&f.cond, Some(Cond::Set { negated: true, .. })),
                When::Set => matches!(&f.cond, Some(Cond::Set { negated: false, .. })),
            };
            if !presence_ok {
                let how = match when {
                    When::Always | When::Optional => "always present".to_string(),
                    When::Bit => "present under a bit of the mask (`if mask.BIT`)".to_string(),
                    When::Clear | When::Set => "present under the `wide` flag".to_string(),
                };
                self.error(
                    at,
                    format!(
                        "`{}` cannot play role `{role}`: its field `{}` must be {how}",
                        r.name, f.name
                    ),
                    format!("expected `{}` {how}", f.name),
                );
            }
            found.insert(f.name.clone(), f);
        }
        for (name, ty, when) in want {
            if *when != When::Optional && !found.contains_key(*name) {
                self.error(
                    at,
                    format!(
                        "`{}` cannot play role `{role}`: it has no field `{name}`",
                        r.name
                    ),
                    format!("expected a field `{name}`: {}", ty.text()),
                );
            }
        }
        (self.out.len() == errors).then_some(found)
    }

    fn fits(&self, f: &Field, want: Want) -> bool {
        let uint = |t: &Type, ok: &dyn Fn(u8) -> bool| matches!(t, Type::Int(IntType { signed: false, bits, .. }) if ok(*bits));
        match want {
            Want::Varint64 => matches!(f.ty, Type::Varint { bits } if bits > 32),
            Want::Varint32 => matches!(f.ty, Type::Varint { bits } if (17..=32).contains(&bits)),
            Want::Zigzag64 => matches!(f.ty, Type::Zigzag { bits } if bits > 32),
            Want::Uint(n) => uint(&f.ty, &|b| b == n),
            Want::Uint32 => uint(&f.ty, &|b| (17..=32).contains(&b)),
            Want::Uint8 => uint(&f.ty, &|b| b <= 8),
            Want::F32 => matches!(f.ty, Type::Float { bits: 32, .. }),
            Want::Bool => matches!(f.ty, Type::Bool),
            Want::OptBytes => matches!(f.ty, Type::OptBytes),
            Want::Bits => self.named_bits(&f.ty).is_some(),
            Want::Records => self.element(&f.ty).is_some(),
            Want::Keys => matches!(&f.ty, Type::Array(a)
                if matches!(a.elem, Type::Varint { bits } if bits > 32)),
            Want::Packed => {
                matches!(&f.ty, Type::Named { name, .. } if self.index.record(name).is_some_and(|r| r.packed))
            }
        }
    }

    fn named_bits(&self, ty: &Type) -> Option<&'s crate::model::Bits> {
        match ty {
            Type::Named { name, .. } => self.index.bits(name),
            _ => None,
        }
    }

    /// The record an array of records holds.
    fn element(&self, ty: &Type) -> Option<&'s Record> {
        match ty {
            Type::Array(a) => match &a.elem {
                Type::Named { name, .. } => self.index.record(name),
                _ => None,
            },
            _ => None,
        }
    }

    /// The mask bit a field is present under.
    fn bit_of(f: &Field) -> String {
        match &f.cond {
            Some(Cond::Bit { bit, .. }) => bit.clone(),
            _ => String::new(),
        }
    }

    fn target(&self, roles: &HashMap<&'static str, NameRef>, role: &str) -> NameRef {
        roles
            .get(role)
            .cloned()
            .unwrap_or_else(|| NameRef::new("", self.schema.name_span))
    }

    // ---- datagram v2 ----

    fn datagram(&mut self, roles: &HashMap<&'static str, NameRef>) -> Option<DatagramPlan> {
        use Want::*;
        use When::{Always, Bit, Optional};
        let position = [
            ("x", Zigzag64, Always),
            ("y", Zigzag64, Always),
            ("z", Zigzag64, Always),
        ];
        let t = self.target(roles, "datagram");
        let d = self.record("datagram", &t, true);
        let d = d.and_then(|d| {
            let f = self.shape(
                "datagram",
                t.span,
                d,
                &[
                    ("frame", Varint64, Always),
                    ("tick", Varint64, Always),
                    ("input_ack", Varint64, Always),
                    ("stream_tick", Varint64, Always),
                    ("precision", F32, Optional),
                    ("parts", Varint32, Always),
                    ("updates", Records, Always),
                ],
            )?;
            Some((d, f))
        });
        let update = d.as_ref().and_then(|(d, f)| {
            let u = self.element(&f["updates"].ty)?;
            let uf = self.shape(
                "datagram",
                t.span,
                u,
                &[
                    ("id", Varint64, Always),
                    ("spawn_tag", Uint(16), Always),
                    ("mask", Bits, Always),
                    ("x", Zigzag64, Bit),
                    ("y", Zigzag64, Bit),
                    ("z", Zigzag64, Bit),
                    ("components", Records, Bit),
                ],
            )?;
            let max_header_len = self.index.max_offset(&d.name, "updates");
            if max_header_len.is_none() {
                self.error(
                    t.span,
                    format!(
                        "`{}` cannot play role `datagram`: the offset of its updates has no upper bound",
                        d.name
                    ),
                    "expected only fixed-width fields and varints before `updates`",
                );
            }
            Some((u, uf, max_header_len?))
        });
        let component = update.as_ref().and_then(|(_, uf, _)| {
            let c = self.element(&uf["components"].ty)?;
            self.shape(
                "datagram",
                t.span,
                c,
                &[("type", Uint(8), Always), ("data", OptBytes, Always)],
            )?;
            Some(c)
        });
        let components = ("components", Records, Always);
        let t = self.target(roles, "spawn");
        let spawn = self.record("spawn", &t, true).and_then(|s| {
            let mut want = vec![
                ("tick", Varint64, Always),
                ("id", Varint64, Always),
                ("precision", F32, Optional),
                components,
            ];
            want.extend(position);
            let f = self.shape("spawn", t.span, s, &want)?;
            self.same_component("spawn", t.span, &f["components"].ty, component);
            Some(Framed {
                name: s.name.clone(),
                precision: f.contains_key("precision"),
            })
        });
        let t = self.target(roles, "despawn");
        let despawn = self.record("despawn", &t, true).and_then(|s| {
            self.shape(
                "despawn",
                t.span,
                s,
                &[("tick", Varint64, Always), ("id", Varint64, Always)],
            )?;
            Some(s.name.clone())
        });
        let t = self.target(roles, "full");
        let full = self.record("full", &t, true).and_then(|s| {
            let f = self.shape(
                "full",
                t.span,
                s,
                &[
                    ("tick", Varint64, Always),
                    ("precision", F32, Optional),
                    ("entities", Records, Always),
                ],
            )?;
            let e = self.element(&f["entities"].ty)?;
            let mut want = vec![("id", Varint64, Always), components];
            want.extend(position);
            let ef = self.shape("full", t.span, e, &want)?;
            self.same_component("full", t.span, &ef["components"].ty, component);
            Some((
                Framed {
                    name: s.name.clone(),
                    precision: f.contains_key("precision"),
                },
                e.name.clone(),
            ))
        });
        let t = self.target(roles, "ack");
        let ack = self.record("ack", &t, true).and_then(|s| {
            self.shape(
                "ack",
                t.span,
                s,
                &[
                    ("frame", Varint64, Always),
                    ("stream_tick", Varint64, Always),
                ],
            )?;
            Some(s.name.clone())
        });
        let ((d, df), (u, uf, max_header_len)) = (d?, update?);
        let (full, entity) = full?;
        let mask = &uf["mask"];
        let mask_bits = self.named_bits(&mask.ty)?;
        let mask_field = mask.name.clone();
        for f in ["x", "y", "z", "components"] {
            if let Some(Cond::Bit { field, .. }) = &uf[f].cond {
                if *field != mask_field {
                    self.error(
                        self.target(roles, "datagram").span,
                        format!(
                            "`{}` cannot play role `datagram`: its field `{f}` is present under `{field}`, not its mask",
                            u.name
                        ),
                        format!("expected `{f}: ... if {mask_field}.BIT`"),
                    );
                }
            }
        }
        Some(DatagramPlan {
            name: self.schema.name.clone(),
            doc: self.schema.docs.doc.clone(),
            datagram: Framed {
                name: d.name.clone(),
                precision: df.contains_key("precision"),
            },
            update: u.name.clone(),
            mask: (mask_field, mask_bits.name.clone()),
            axis_bits: [
                Self::bit_of(uf["x"]),
                Self::bit_of(uf["y"]),
                Self::bit_of(uf["z"]),
            ],
            components_bit: Self::bit_of(uf["components"]),
            component: component?.name.clone(),
            spawn: spawn?,
            despawn: despawn?,
            full,
            entity,
            ack: ack?,
            max_header_len,
            id_bits: match uf["id"].ty {
                Type::Varint { bits } => bits,
                _ => 64,
            },
        })
    }

    /// Every frame of a datagram schema carries one component record (DG-6 says one layout).
    fn same_component(&mut self, role: &str, at: Span, ty: &Type, component: Option<&Record>) {
        let (Some(c), Some(e)) = (component, self.element(ty)) else {
            return;
        };
        if c.name != e.name {
            self.error(
                at,
                format!(
                    "role `{role}` carries components as `{}`, where the datagram's updates carry `{}`",
                    e.name, c.name
                ),
                format!("expected `[{}; ...]`", c.name),
            );
        }
    }

    // ---- NetBaseline ----

    fn baseline(&mut self, roles: &HashMap<&'static str, NameRef>) -> Option<BaselinePlan> {
        use Want::*;
        use When::{Always, Bit, Clear, Set};
        let t = self.target(roles, "snapshot");
        let snapshot = self.record("snapshot", &t, true).and_then(|s| {
            let f = self.shape(
                "snapshot",
                t.span,
                s,
                &[("sequence", Uint(16), Always), ("body", Packed, Always)],
            )?;
            let body_field = f["body"];
            if s.fields.last().map(|l| &l.name) != Some(&body_field.name) {
                self.error(
                    t.span,
                    format!(
                        "`{}` cannot play role `snapshot`: its body is not its last field",
                        s.name
                    ),
                    "expected the packed body last",
                );
                return None;
            }
            let header = self.index.max_offset(&s.name, &body_field.name)?;
            let body = match &body_field.ty {
                Type::Named { name, .. } => self.index.record(name)?,
                _ => return None,
            };
            Some((s, header, body))
        });
        let shape = snapshot.and_then(|(s, header, body)| {
            let f = self.shape(
                "snapshot",
                t.span,
                body,
                &[("lost", Records, Always), ("entries", Records, Always)],
            )?;
            let mut count_bits = 0;
            for list in ["lost", "entries"] {
                let counted = match &f[list].ty {
                    Type::Array(a) => match &a.count {
                        Count::Field { name, .. } => body
                            .fields
                            .iter()
                            .find(|c| c.name == *name)
                            .and_then(|c| self.index.max_bits(&c.ty, true)),
                        Count::Prefix(ty) => self.index.max_bits(ty, true),
                    },
                    _ => None,
                };
                count_bits += counted?;
            }
            let lost = self.element(&f["lost"].ty)?;
            let entry = self.element(&f["entries"].ty)?;
            // Checked beside the entry, so that both are reported.
            let lost_ok = self
                .shape(
                    "snapshot",
                    t.span,
                    lost,
                    &[("slot", Uint(24), Always), ("generation", Uint(8), Always)],
                )
                .is_some();
            let lost_bits = 32;
            // The entry: its gap, generation and mask, then a `select` arm per component.
            let plain: Vec<_> = entry
                .fields
                .iter()
                .filter(|f| f.selector.is_none())
                .collect();
            let wide = plain.iter().any(|f| f.name == "wide");
            let mut want = vec![("generation", Uint(8), Always), ("mask", Bits, Always)];
            if wide {
                want.extend([
                    ("wide", Bool, Always),
                    ("gap", Uint8, Clear),
                    ("wide_gap", Uint32, Set),
                ]);
            } else {
                want.push(("gap", Uint32, Always));
            }
            let selected: Vec<_> = entry
                .fields
                .iter()
                .filter(|f| f.selector.is_some())
                .map(|f| f.name.clone())
                .collect();
            for name in &selected {
                want.push((name.as_str(), Packed, Bit));
            }
            // The arms are checked below; the shape checks the rest.
            let plain_entry = Record {
                fields: plain.into_iter().cloned().collect(),
                ..entry.clone()
            };
            let ef = self.shape("snapshot", t.span, &plain_entry, &want[..want.len() - selected.len()])?;
            let width = |f: &Field| self.index.max_bits(&f.ty, true).unwrap_or(0);
            let gap = if wide {
                Gap::Wide {
                    narrow: width(ef["gap"]) as u8,
                    wide: width(ef["wide_gap"]) as u8,
                }
            } else {
                Gap::Plain {
                    bits: width(ef["gap"]) as u8,
                }
            };
            let mask = ef["mask"];
            let bits = self.named_bits(&mask.ty)?;
            let mut components = Vec::new();
            for (i, f) in entry.fields.iter().filter(|f| f.selector.is_some()).enumerate() {
                let sel = f.selector.as_ref()?;
                let record = match &f.ty {
                    Type::Named { name, .. } => self.index.record(name).filter(|r| r.packed),
                    _ => None,
                };
                let index = crate::index::Index::bit_index(bits, &sel.bit);
                if sel.mask != mask.name || record.is_none() || index != u8::try_from(i).ok() || f.cond.is_some() {
                    self.error(
                        t.span,
                        format!(
                            "`{}` cannot play role `snapshot`: component `{}` is not the packed record of mask bit {i}",
                            entry.name, f.name
                        ),
                        format!("expected `select {} {{ ... }}` arms of packed records, bits 0, 1, ... in order", mask.name),
                    );
                    continue;
                }
                components.push(BaselineComponent {
                    field: f.name.clone(),
                    record: record?.name.clone(),
                    bit: sel.bit.clone(),
                    doc: f.docs.doc.clone(),
                });
            }
            if selected.is_empty() {
                self.error(
                    t.span,
                    format!("`{}` cannot play role `snapshot`: its entries carry no component", entry.name),
                    "expected a `select mask { BIT => field: Record, ... }` in the entry",
                );
            }
            if !lost_ok {
                return None;
            }
            let gap_bits = match gap {
                Gap::Plain { bits } => u64::from(bits),
                Gap::Wide { wide, .. } => 1 + u64::from(wide),
            };
            Some(BaselinePlan {
                name: self.schema.name.clone(),
                doc: self.schema.docs.doc.clone(),
                snapshot: s.name.clone(),
                body: (s.fields.last()?.name.clone(), body.name.clone()),
                lost: lost.name.clone(),
                entry: entry.name.clone(),
                gap,
                mask: (mask.name.clone(), bits.name.clone()),
                components,
                ack: String::new(),
                ack_window: String::new(),
                max_lost: String::new(),
                header_bytes: header,
                count_bits,
                entry_head_bits: gap_bits + 8 + u64::from(bits.width),
                lost_bits,
            })
        });
        let t = self.target(roles, "ack");
        let ack = self.record("ack", &t, true).and_then(|s| {
            self.shape("ack", t.span, s, &[("sequence", Uint(16), Always)])?;
            Some(s.name.clone())
        });
        let ack_window = self.constant(roles, "ack_window", Some(16));
        let max_lost = self.constant(roles, "max_lost", None);
        let mut plan = shape?;
        plan.ack = ack?;
        plan.ack_window = ack_window?;
        plan.max_lost = max_lost?;
        Some(plan)
    }

    /// A role played by an unsigned constant (of exactly `bits` bits when given).
    fn constant(
        &mut self,
        roles: &HashMap<&'static str, NameRef>,
        role: &str,
        bits: Option<u8>,
    ) -> Option<String> {
        let t = self.target(roles, role);
        let c = match self.index.get(&t.name) {
            Some(Decl::Const(c)) => c,
            _ => {
                self.error(
                    t.span,
                    format!(
                        "role `{role}` names `{}`, which is not a declared constant",
                        t.name
                    ),
                    "expected a `const` declared in the spec",
                );
                return None;
            }
        };
        let ok = !c.ty.signed && bits.is_none_or(|b| c.ty.bits == b);
        if !ok {
            self.error(
                t.span,
                format!(
                    "constant `{}` cannot play role `{role}`: it is a `{}{}`",
                    c.name,
                    if c.ty.signed { "i" } else { "u" },
                    c.ty.bits
                ),
                match bits {
                    Some(b) => format!("expected a `u{b}` constant"),
                    None => "expected an unsigned constant".into(),
                },
            );
            return None;
        }
        Some(c.name.clone())
    }

    // ---- delta ----

    fn delta(&mut self, roles: &HashMap<&'static str, NameRef>) -> Option<DeltaPlan> {
        use Want::*;
        use When::{Always, Bit};
        let t = self.target(roles, "plan");
        let plan = self.record("plan", &t, true).and_then(|s| {
            let f = self.shape(
                "plan",
                t.span,
                s,
                &[
                    ("flags", Bits, Always),
                    ("sequence", Varint64, Always),
                    ("baseline_seq", Varint64, Bit),
                    ("entered", Keys, Always),
                    ("left", Keys, Always),
                ],
            )?;
            let flags = f["flags"];
            let bits = self.named_bits(&flags.ty)?;
            if crate::index::Index::bit_index(bits, "FULL_BASELINE").is_none() {
                self.error(
                    t.span,
                    format!(
                        "`{}` cannot play role `plan`: its flags `{}` name no bit `FULL_BASELINE`",
                        s.name, bits.name
                    ),
                    "expected a bit `FULL_BASELINE`: the subscriber clears its mirror first",
                );
                return None;
            }
            Some((
                s.name.clone(),
                (flags.name.clone(), bits.name.clone()),
                Self::bit_of(f["baseline_seq"]),
            ))
        });
        let t = self.target(roles, "ack");
        let ack = self.record("ack", &t, true).and_then(|s| {
            self.shape(
                "ack",
                t.span,
                s,
                &[
                    ("newest", Varint64, Always),
                    ("mask", Uint(64), Always),
                    ("digest", Uint(64), Always),
                ],
            )?;
            Some(s.name.clone())
        });
        let (plan, flags, baseline_bit) = plan?;
        Some(DeltaPlan {
            name: self.schema.name.clone(),
            doc: self.schema.docs.doc.clone(),
            plan,
            flags,
            baseline_bit,
            ack: ack?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference protocol's schemas resolve to the numbers its hand-written bindings
    /// counted in: a datagram header of 51 bytes at most (DG-7), a snapshot's 3 header bytes,
    /// 7 + 16 count bits, 1 + 24 + 8 + 4 entry head bits and 32 bits a lost entity.
    #[test]
    fn the_reference_schemas_resolve_to_the_seed_layouts() {
        let spec = crate::compile(&crate::reference_sources()).unwrap_or_else(|e| panic!("{e}"));
        let plans = plans(&spec);
        let names: Vec<&str> = plans.iter().map(MachinePlan::name).collect();
        assert_eq!(
            names,
            ["ReferenceBaseline", "ReferenceDatagram", "ReferenceDelta"]
        );
        let MachinePlan::Baseline(b) = &plans[0] else {
            panic!("not a baseline plan: {:?}", plans[0]);
        };
        assert_eq!(
            (b.header_bytes, b.count_bits, b.entry_head_bits, b.lost_bits),
            (3, 23, 37, 32)
        );
        assert_eq!(
            b.gap,
            Gap::Wide {
                narrow: 7,
                wide: 24
            }
        );
        let components: Vec<(&str, &str)> = b
            .components
            .iter()
            .map(|c| (c.field.as_str(), c.record.as_str()))
            .collect();
        assert_eq!(
            components,
            [
                ("transform", "Transform"),
                ("velocity", "Velocity"),
                ("health", "Vitality"),
                ("team", "Team")
            ]
        );
        let MachinePlan::Datagram(d) = &plans[1] else {
            panic!("not a datagram plan: {:?}", plans[1]);
        };
        assert_eq!(d.max_header_len, 51);
        assert_eq!(d.axis_bits, ["X", "Y", "Z"].map(String::from));
        assert_eq!(
            (d.update.as_str(), d.entity.as_str()),
            ("Update", "FullEntity")
        );
        assert!(d.datagram.precision && d.spawn.precision && d.full.precision);
        let MachinePlan::Delta(p) = &plans[2] else {
            panic!("not a delta plan: {:?}", plans[2]);
        };
        assert_eq!(p.baseline_bit, "BASELINE");
    }
}
