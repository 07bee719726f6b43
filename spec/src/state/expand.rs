//! The items a state derives: its frames' layouts, written out as ordinary bit sets, records
//! and frames, so that every printer, `explain`, the dissector, the docs and `breaking` treat
//! them as any item written in a file.
//!
//! For a state with a byte-aligned frame `Acked = 6`, change `Change`, mask `ChangeMask: u16`:
//!
//! - `bits AckedFlags: u8 { KEYFRAME = 0, CHECK = 1 }` (named after the first frame);
//! - `bits ChangeMask: u16`: each group's bit from 0 in declaration order, then each group's
//!   `GROUP_FULL` (two forms) and `GROUP_AGE` (a tick) bits, in group order, in the mask's top
//!   bits, each requiring its group's bit (ACK-6: POSE_FULL is 14, POSE_AGE 15);
//! - `record Change { eid: u16, mask: ChangeMask, age: u8 if mask.POSE_AGE, select mask { ... } }`,
//!   a group of two forms selected as `POSE => pose_full: PoseFull if mask.POSE_FULL` and
//!   `POSE => pose_step: PoseStep if !mask.POSE_FULL`;
//! - each group's records (a form's, or the group's own);
//! - `frame Acked`, ACK-2's header field for field;
//! - the state's record, its fields in canonical order;
//! - with `ack Ack = 7`: `bits AckFlags` and `frame Ack`.
//!
//! A packed frame `AckedPacked = 12` adds its mask (the same bits, the form and age bits right
//! after the groups'), its change (`eid` its gap's code, ascending), its body and the groups'
//! records under the prefix (a packed group record is shared), each field coded as its
//! `packed` code says or as its byte-aligned type.

use super::plan::{FormRole, StatePlan};
use crate::index::Index;
use crate::model::{
    Array, Ascending, Bit, BitKind, Bits, Cond, Count, Docs, Field, Form, Group, Item, Record,
    RecordKind, Selector, Span, Spec, State, StateMember, Type,
};

/// `spec` with every state's derived items after it. A state that does not resolve derives
/// nothing (its problems are [`super::check`]'s).
pub fn expand(mut spec: Spec) -> Spec {
    let plans: Vec<Option<StatePlan>> = {
        let index = Index::new(&spec);
        spec.files
            .iter()
            .flat_map(|f| f.items.iter().map(move |i| (f, i)))
            .filter_map(|(f, i)| match i {
                Item::State(s) => Some(StatePlan::resolve(s, &index, &f.name).ok()),
                _ => None,
            })
            .collect()
    };
    let mut plans = plans.into_iter();
    for file in &mut spec.files {
        let mut items = Vec::with_capacity(file.items.len());
        for item in std::mem::take(&mut file.items) {
            let derived = match &item {
                Item::State(s) => plans.next().flatten().map(|p| derive(s, &p)),
                _ => None,
            };
            items.push(item);
            items.extend(derived.into_iter().flatten());
        }
        file.items = items;
    }
    spec
}

/// A derived item's docs: the sentences given, wrapped as a layout file's are.
fn docs(lines: &[&str]) -> Docs {
    Docs {
        doc: if lines.is_empty() {
            Vec::new()
        } else {
            wrap(&lines.join(" "))
        },
        comments: Vec::new(),
    }
}

fn own_docs(d: &Docs) -> Docs {
    Docs {
        doc: d.doc.clone(),
        comments: Vec::new(),
    }
}

fn named(name: &str, span: Span) -> Type {
    Type::Named {
        name: name.to_string(),
        span,
    }
}

fn int(signed: bool, bits: u8) -> Type {
    Type::Int(crate::model::IntType {
        signed,
        bits,
        endian: None,
    })
}

fn field(doc: &[&str], name: &str, ty: Type, span: Span) -> Field {
    Field {
        docs: docs(doc),
        name: name.to_string(),
        name_span: span,
        ty,
        constant: None,
        selector: None,
        cond: None,
    }
}

fn bit_cond(field: &str, bit: &str, negated: bool, span: Span) -> Cond {
    Cond::Bit {
        field: field.to_string(),
        bit: bit.to_string(),
        negated,
        span,
    }
}

fn record(
    state: &str,
    name: &str,
    span: Span,
    d: Docs,
    packed: bool,
    kind: RecordKind,
    fields: Vec<Field>,
) -> Item {
    Item::Record(Record {
        docs: d,
        kind,
        packed,
        name: name.to_string(),
        name_span: span,
        fields,
        trailing_comments: Vec::new(),
        derived_from: Some(state.to_string()),
    })
}

fn bits_item(state: &str, name: &str, span: Span, d: Docs, width: u8, bits: Vec<Bit>) -> Item {
    Item::Bits(Bits {
        docs: d,
        name: name.to_string(),
        name_span: span,
        width,
        bits,
        trailing_comments: Vec::new(),
        derived_from: Some(state.to_string()),
    })
}

fn named_bit(doc: &[String], name: &str, index: u8, requires: Option<&str>, span: Span) -> Bit {
    Bit {
        docs: Docs {
            doc: doc.to_vec(),
            comments: Vec::new(),
        },
        kind: BitKind::Named {
            name: name.to_string(),
            index,
            requires: requires.map(str::to_string),
        },
        span,
    }
}

fn reserved(lo: u8, hi: u8) -> Bit {
    Bit {
        docs: Docs::default(),
        kind: BitKind::Reserved { lo, hi },
        span: Span::default(),
    }
}

/// Every item `state` derives.
fn derive(state: &State, plan: &StatePlan) -> Vec<Item> {
    let mut out = Vec::new();
    let s = state.name.as_str();
    let groups: Vec<&Group> = state.groups().collect();
    let first = state.frames().next();
    let flags_span = first.map_or(state.name_span, |f| f.name.span);
    out.push(bits_item(
        s,
        &plan.acked_flags,
        flags_span,
        docs(&["What an acked frame's flags say (ACK-4)."]),
        8,
        vec![
            named_bit(
                &["The frame applies onto nothing (base_tick is then 0).".into()],
                "KEYFRAME",
                0,
                None,
                flags_span,
            ),
            named_bit(
                &["The u32 FNV-1a check follows the header.".into()],
                "CHECK",
                1,
                None,
                flags_span,
            ),
            reserved(2, 7),
        ],
    ));
    for profile in state.frames() {
        let Some(pp) = plan.profiles.iter().find(|p| p.frame == profile.name.name) else {
            continue;
        };
        let change = profile.change.as_ref();
        let mask = profile.mask.as_ref();
        let (Some(change), Some(mask)) = (change, mask) else {
            continue;
        };
        // The mask.
        let mut bits = Vec::new();
        for (g, gp) in groups.iter().zip(&plan.groups) {
            let doc = format!("The {} group follows.", g.name);
            bits.push(named_bit(&[doc], &gp.bit_name, gp.bit, None, g.name_span));
        }
        let mut flag_bits: Vec<(u8, Bit)> = Vec::new();
        for (gi, gp) in plan.groups.iter().enumerate() {
            let g = groups[gi];
            if let (Some(name), Some(index)) = (&gp.full_bit_name, pp.full_bits[gi]) {
                let step = gp.form(FormRole::Step).map_or("", |f| f.field.as_str());
                let doc = wrap(&format!(
                    "The {} travels in full (`{}`) rather than as steps from the base's (`{step}`), since the base can be any recent frame.",
                    g.name,
                    gp.form(FormRole::Full).map_or("", |f| f.field.as_str()),
                ));
                flag_bits.push((
                    index,
                    named_bit(&doc, name, index, Some(&gp.bit_name), g.name_span),
                ));
            }
            if let (Some(name), Some(index), Some(t)) =
                (&gp.age_bit_name, pp.age_bits[gi], &gp.tick)
            {
                let doc = wrap(&format!(
                    "The {} was measured `{}` ticks before this frame's tick (in a frame that was lost), so the client records it at the tick it was true.",
                    g.name, t.age
                ));
                flag_bits.push((
                    index,
                    named_bit(&doc, name, index, Some(&gp.bit_name), g.name_span),
                ));
            }
        }
        let groups_end = u8::try_from(plan.groups.len()).unwrap_or(u8::MAX);
        let flags_start = flag_bits.first().map_or(pp.mask_width, |(i, _)| *i);
        if !pp.packed && flags_start > groups_end {
            bits.push(reserved(groups_end, flags_start - 1));
        }
        let flags_end = flag_bits.last().map_or(groups_end, |(i, _)| i + 1);
        bits.extend(flag_bits.into_iter().map(|(_, b)| b));
        if flags_end < pp.mask_width {
            bits.push(reserved(flags_end, pp.mask_width - 1));
        }
        out.push(bits_item(
            s,
            &pp.mask,
            mask.name.span,
            own_docs(&mask.docs),
            pp.mask_width,
            bits,
        ));
        // The change.
        let mut fields = vec![
            field(
                &["The entity."],
                "eid",
                if pp.packed {
                    pp.eid.clone()
                } else {
                    int(false, 16)
                },
                change.name.span,
            ),
            field(
                &["Which groups follow, and how they travel."],
                "mask",
                named(&pp.mask, change.name.span),
                change.name.span,
            ),
        ];
        for (gi, gp) in plan.groups.iter().enumerate() {
            if let (Some(t), Some(bit)) = (&gp.tick, &gp.age_bit_name) {
                let g = groups[gi];
                let span = g
                    .fields
                    .get(t.field)
                    .and_then(|f| f.age.as_ref())
                    .map_or(g.name_span, |a| a.name_span);
                let ty = if pp.packed {
                    t.packed.clone()
                } else {
                    Type::Int(t.wire)
                };
                let mut f = field(&[], &t.age, ty, span);
                f.docs.doc = wrap(&format!(
                    "Ticks between the {}'s measurement and this frame's tick.",
                    g.name
                ));
                f.cond = Some(bit_cond("mask", bit, false, span));
                fields.push(f);
            }
        }
        for (gi, gp) in plan.groups.iter().enumerate() {
            let g = groups[gi];
            for form in &gp.forms {
                let rec = if pp.packed {
                    &form.packed_record
                } else {
                    &form.record
                };
                let span = form_span(g, form.role);
                let mut f = field(&[], &form.field, named(rec, span), span);
                f.docs = Docs {
                    doc: form.docs.clone(),
                    comments: Vec::new(),
                };
                f.selector = Some(Selector {
                    mask: "mask".into(),
                    bit: gp.bit_name.clone(),
                    span,
                });
                if let Some(full) = &gp.full_bit_name {
                    f.cond = Some(bit_cond("mask", full, form.role == FormRole::Step, span));
                }
                fields.push(f);
            }
        }
        let change_item = record(
            s,
            &pp.change,
            change.name.span,
            own_docs(&change.docs),
            pp.packed,
            RecordKind::Record,
            fields,
        );
        // The frame.
        let fspan = profile.name.span;
        let mut frame = vec![
            Field {
                constant: Some(i128::from(pp.kind)),
                ..field(
                    &[&format!(
                        "{} frames are kind {}.",
                        profile.name.name, pp.kind
                    )],
                    "kind",
                    int(false, 8),
                    profile.kind_span,
                )
            },
            field(
                &["The server tick this frame describes."],
                "tick",
                int(false, 32),
                fspan,
            ),
            field(
                &["The tick of the acknowledged frame this one applies onto (0 for a keyframe)."],
                "base_tick",
                int(false, 32),
                fspan,
            ),
            field(
                &["The newest input sequence the server has processed for this client."],
                "last_seq",
                int(false, 32),
                fspan,
            ),
            field(
                &["How many of the client's inputs the server holds, ahead of execution."],
                "input_buffer",
                int(false, 8),
                fspan,
            ),
            field(
                &["KEYFRAME and CHECK."],
                "flags",
                named(&plan.acked_flags, fspan),
                fspan,
            ),
            field(
                &["How many entities are gone."],
                "removed_count",
                int(false, 16),
                fspan,
            ),
        ];
        if !pp.packed {
            frame.push(field(
                &["How many entities changed."],
                "changed_count",
                int(false, 16),
                fspan,
            ));
        }
        let mut check = field(
            &["FNV-1a of every record of the state this frame produces."],
            "check",
            int(false, 32),
            fspan,
        );
        check.cond = Some(bit_cond("flags", "CHECK", false, fspan));
        frame.push(check);
        frame.push(field(
            &["The entities gone, and those whose life changed under their id (they come again whole)."],
            "removed",
            Type::Array(Box::new(Array {
                elem: int(false, 16),
                count: Count::Field { name: "removed_count".into(), span: fspan },
                ascending: None,
            })),
            fspan,
        ));
        let mut body_items = Vec::new();
        if let Some(body) = &pp.body {
            let bspan = profile.body.as_ref().map_or(fspan, |b| b.name.span);
            frame.push(field(
                &["The entities whose groups differ from the base, as a bit stream."],
                "body",
                named(body, bspan),
                bspan,
            ));
            body_items.push(record(
                s,
                body,
                bspan,
                profile.body.as_ref().map(|b| own_docs(&b.docs)).unwrap_or_default(),
                true,
                RecordKind::Record,
                vec![
                    field(&["How many entities changed."], "changed_count", int(false, 16), bspan),
                    field(
                        &["The changes in ascending id (ACK-8): the first change's id, then each id as its gap from the previous change's (at least 1)."],
                        "changes",
                        Type::Array(Box::new(Array {
                            elem: named(&pp.change, bspan),
                            count: Count::Field { name: "changed_count".into(), span: bspan },
                            ascending: Some(Ascending { key: Some("eid".into()), span: bspan }),
                        })),
                        bspan,
                    ),
                ],
            ));
        } else {
            frame.push(field(
                &["The entities whose groups differ from the base."],
                "changes",
                Type::Array(Box::new(Array {
                    elem: named(&pp.change, fspan),
                    count: Count::Field {
                        name: "changed_count".into(),
                        span: fspan,
                    },
                    ascending: None,
                })),
                fspan,
            ));
        }
        frame.push(field(
            &["How many events this frame carries."],
            "event_count",
            int(false, 8),
            fspan,
        ));
        let mut serial = field(
            &["The serial of the first event; the i-th has first_serial + i."],
            "first_serial",
            int(false, 32),
            fspan,
        );
        serial.cond = Some(Cond::Greater {
            field: "event_count".into(),
            value: 0,
            span: fspan,
        });
        frame.push(serial);
        frame.push(field(
            &["Events not yet acknowledged, oldest first."],
            "events",
            Type::Array(Box::new(Array {
                elem: named(&plan.events, fspan),
                count: Count::Field {
                    name: "event_count".into(),
                    span: fspan,
                },
                ascending: None,
            })),
            fspan,
        ));
        out.push(record(
            s,
            &pp.frame,
            fspan,
            own_docs(&profile.docs),
            false,
            RecordKind::Frame,
            frame,
        ));
        out.extend(body_items);
        out.push(change_item);
        // The groups' records on the wire: a packed group record (a quaternion's) is the same
        // in both profiles, derived with the byte-aligned frame when there is one.
        for (gi, gp) in plan.groups.iter().enumerate() {
            let g = groups[gi];
            for form in &gp.forms {
                if pp.packed && form.packed && plan.byte_profile().is_some() {
                    continue;
                }
                let name = if pp.packed {
                    &form.packed_record
                } else {
                    &form.record
                };
                let wire_fields = form
                    .wire
                    .iter()
                    .map(|w| Field {
                        docs: Docs {
                            doc: w.docs.clone(),
                            comments: Vec::new(),
                        },
                        name: w.name.clone(),
                        name_span: wire_span(g, form.role, &w.name),
                        ty: if pp.packed {
                            w.packed.clone()
                        } else {
                            w.ty.clone()
                        },
                        constant: None,
                        selector: None,
                        cond: None,
                    })
                    .collect();
                out.push(record(
                    s,
                    name,
                    form_span(g, form.role),
                    Docs {
                        doc: form.docs.clone(),
                        comments: Vec::new(),
                    },
                    pp.packed || form.packed,
                    RecordKind::Record,
                    wire_fields,
                ));
            }
        }
    }
    // The state's record.
    if let Some(rec) = state.record() {
        let mut fields = Vec::new();
        for f in &plan.record.fields {
            let (doc, span) = record_field_docs(state, plan, &f.holds);
            let mut x = field(&[], &f.name, f.ty.clone(), span);
            x.docs = doc;
            if let (Some(bit), Some(flags)) = (&f.present, &plan.flags) {
                x.cond = Some(bit_cond(&flags.name, &bit.name, false, span));
            }
            fields.push(x);
        }
        out.push(record(
            s,
            &plan.record.name,
            rec.name.span,
            own_docs(&rec.docs),
            false,
            RecordKind::Record,
            fields,
        ));
    }
    // The ack frame.
    if let (Some(a), Some(decl), Some(inputs)) = (&plan.ack, state.ack(), &plan.inputs) {
        let span = decl.name.span;
        out.push(bits_item(
            s,
            &a.flags,
            span,
            docs(&["What an ack/input frame's flags say."]),
            8,
            vec![
                named_bit(
                    &[
                        "The client's check of the state failed: it asks for a keyframe, and acknowledges nothing".into(),
                        "until one arrives. While the bit is set, ack_tick is 0 and the client holds no base: it".into(),
                        "has dropped every state it kept, since any of them may be wrong, and applies only a".into(),
                        "keyframe. The server, on this bit, forgets every acknowledgement it had (and ignores any".into(),
                        "for a tick it had sent before the request) and sends keyframes until one is".into(),
                        "acknowledged. The client sets the bit in every ack frame from the mismatch until a".into(),
                        "keyframe applies, so a lost ack frame loses no request.".into(),
                    ],
                    "KEYFRAME_REQUEST",
                    0,
                    None,
                    span,
                ),
                reserved(1, 7),
            ],
        ));
        let mut first_seq = field(
            &["The sequence number of the first input; the i-th has first_seq + i."],
            "first_seq",
            int(false, 32),
            span,
        );
        first_seq.cond = Some(Cond::Greater {
            field: "input_count".into(),
            value: 0,
            span,
        });
        out.push(record(
            s,
            &a.frame,
            span,
            own_docs(&decl.docs),
            false,
            RecordKind::Frame,
            vec![
                Field {
                    constant: Some(i128::from(a.kind)),
                    ..field(&[&format!("{} frames are kind {}.", a.frame, a.kind)], "kind", int(false, 8), decl.kind_span)
                },
                field(&["The tick of the newest acked frame the client has applied (0 before the first)."], "ack_tick", int(false, 32), span),
                field(&["KEYFRAME_REQUEST."], "flags", named(&a.flags, span), span),
                field(&["How many inputs follow."], "input_count", int(false, 8), span),
                first_seq,
                field(
                    &["The inputs, oldest first."],
                    "inputs",
                    Type::Array(Box::new(Array {
                        elem: named(inputs, span),
                        count: Count::Field { name: "input_count".into(), span },
                        ascending: None,
                    })),
                    span,
                ),
            ],
        ));
    }
    out
}

/// A derived doc comment in lines of at most 80 characters, as a layout file's are written.
fn wrap(text: &str) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split_whitespace() {
        let last = lines.last_mut().map_or(0, |l| l.len());
        if last > 0 && last + 1 + word.len() > 80 {
            lines.push(String::new());
        }
        if let Some(l) = lines.last_mut() {
            if !l.is_empty() {
                l.push(' ');
            }
            l.push_str(word);
        }
    }
    lines
}

/// Where a form (or a group of one form) was written.
fn form_span(g: &Group, role: FormRole) -> Span {
    form_of(g, role).map_or(g.name_span, |f| f.name_span)
}

fn form_of(g: &Group, role: FormRole) -> Option<&Form> {
    let kind = match role {
        FormRole::Only => return None,
        FormRole::Full => crate::model::FormKind::Full,
        FormRole::Step => crate::model::FormKind::Step,
    };
    g.forms.iter().find(|f| f.kind == kind)
}

/// Where a wire field was written.
fn wire_span(g: &Group, role: FormRole, name: &str) -> Span {
    match form_of(g, role) {
        Some(f) => f
            .fields
            .iter()
            .find(|w| w.name == name)
            .map_or(f.name_span, |w| w.name_span),
        None => g
            .fields
            .iter()
            .find(|x| x.name == name)
            .map_or(g.name_span, |x| x.name_span),
    }
}

/// The docs and place of a record field.
fn record_field_docs(state: &State, plan: &StatePlan, holds: &super::plan::Holds) -> (Docs, Span) {
    use super::plan::Holds;
    let groups: Vec<&Group> = state.groups().collect();
    match holds {
        Holds::Field { group, field } => {
            let f = groups.get(*group).and_then(|g| g.fields.get(*field));
            f.map_or((Docs::default(), state.name_span), |f| {
                (own_docs(&f.docs), f.name_span)
            })
        }
        Holds::Group(g) => groups
            .get(*g)
            .map_or((Docs::default(), state.name_span), |g| {
                (own_docs(&g.docs), g.name_span)
            }),
        Holds::Flags => state
            .members
            .iter()
            .find_map(|m| match m {
                StateMember::Flags(f) => Some((own_docs(&f.docs), f.name.span)),
                _ => None,
            })
            .unwrap_or_else(|| {
                let _ = plan;
                (Docs::default(), state.name_span)
            }),
    }
}
