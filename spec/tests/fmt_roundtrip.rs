//! Formatting is the inverse of parsing: for random models within what the language can
//! express, `parse(format(model)) == model`, and formatting the result again changes nothing.

use ackwire_spec::fmt::format_file;
use ackwire_spec::model::{
    AckDecl, Age, Array, Ascending, Bit, BitKind, Bits, CodedForm, CodedProfile, CodedUse, Cond,
    Const, ConstValue, Count, Docs, Endian, Field, FieldBit, File, Form, FormField, FormKind,
    Group, GroupField, IntType, Item, NameRef, Profile, ProfileMask, ProfileName, ProfileType,
    Record, RecordKind, Selector, Span, State, StateFlagsField, StateMember, StateRecord,
    TablesPath, Type, Union, Variant,
};
use ackwire_spec::parse::parse_file;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

const KEYWORDS: &[&str] = &[
    "endian",
    "little",
    "big",
    "const",
    "bits",
    "reserved",
    "requires",
    "record",
    "packed",
    "frame",
    "union",
    "select",
    "if",
    "ascending",
    "max_offset",
    "state",
    "group",
    "bool",
    "varint",
    "zigzag",
    "bytes",
    "quant",
    "quat",
    "bucket",
    "zbucket",
];

/// Keywords and anything spelled like a type (`u7`, `f32be`).
fn reserved(word: &str) -> bool {
    let base = word
        .strip_suffix("le")
        .or_else(|| word.strip_suffix("be"))
        .unwrap_or(word);
    let typeish = base.len() > 1
        && base.starts_with(['u', 'i', 'f'])
        && base[1..].bytes().all(|b| b.is_ascii_digit());
    KEYWORDS.contains(&word) || typeish
}

fn snake() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,8}".prop_filter("a keyword", |s| !reserved(s))
}

/// Field names may be keywords.
fn field_name() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => snake(),
        1 => prop::sample::select(vec!["type", "frame", "select", "if", "u8", "record", "bits"])
            .prop_map(String::from),
    ]
}

fn pascal() -> impl Strategy<Value = String> {
    "[A-Z][A-Za-z0-9]{0,8}"
}

fn screaming() -> impl Strategy<Value = String> {
    "[A-Z][A-Z0-9_]{0,8}"
}

/// One line of doc or comment text.
fn text() -> impl Strategy<Value = String> {
    "[ -~]{0,20}"
}

fn docs() -> impl Strategy<Value = Docs> {
    (vec(text(), 0..3), vec(text(), 0..2)).prop_map(|(doc, comments)| Docs { doc, comments })
}

fn endian() -> impl Strategy<Value = Endian> {
    prop_oneof![Just(Endian::Little), Just(Endian::Big)]
}

fn int_type() -> impl Strategy<Value = IntType> {
    (any::<bool>(), 1u8..=64, option::of(endian())).prop_map(|(signed, bits, endian)| IntType {
        signed,
        bits: if signed { bits.max(2) } else { bits },
        endian,
    })
}

fn leaf_type() -> impl Strategy<Value = Type> {
    prop_oneof![
        int_type().prop_map(Type::Int),
        (prop_oneof![Just(32u8), Just(64u8)], option::of(endian()))
            .prop_map(|(bits, endian)| Type::Float { bits, endian }),
        Just(Type::Bool),
        (1u8..=64).prop_map(|bits| Type::Varint { bits }),
        (1u8..=64).prop_map(|bits| Type::Zigzag { bits }),
        Just(Type::Bytes),
        Just(Type::OptBytes),
        pascal().prop_map(|name| Type::Named {
            name,
            span: Span::default()
        }),
        (int_type(), any::<u64>(), 1u64..).prop_map(|(wire, num, den)| Type::Quant {
            wire: Box::new(Type::Int(wire)),
            num,
            den
        }),
        (2u8..=16).prop_map(|bits| Type::Quat {
            bits,
            span: Span::default()
        }),
        (
            any::<bool>(),
            proptest::collection::btree_set(0u8..=64, 1..=8)
        )
            .prop_map(|(signed, widths)| Type::Bucket {
                signed,
                widths: widths.into_iter().collect(),
                span: Span::default()
            }),
    ]
}

fn count() -> impl Strategy<Value = Count> {
    prop_oneof![
        snake().prop_map(|name| Count::Field {
            name,
            span: Span::default()
        }),
        int_type().prop_map(|t| Count::Prefix(Box::new(Type::Int(t)))),
        (1u8..=64).prop_map(|bits| Count::Prefix(Box::new(Type::Varint { bits }))),
    ]
}

fn ty() -> impl Strategy<Value = Type> {
    leaf_type().prop_recursive(4, 16, 1, |inner| {
        (inner, count(), option::of(option::of(field_name()))).prop_map(|(elem, count, asc)| {
            Type::Array(Box::new(Array {
                elem,
                count,
                ascending: asc.map(|key| Ascending {
                    key,
                    span: Span::default(),
                }),
            }))
        })
    })
}

fn operand() -> impl Strategy<Value = Cond> {
    prop_oneof![
        (field_name(), screaming(), any::<bool>()).prop_map(|(field, bit, negated)| Cond::Bit {
            field,
            bit,
            negated,
            span: Span::default()
        }),
        (field_name(), any::<bool>()).prop_map(|(field, negated)| Cond::Set {
            field,
            negated,
            span: Span::default()
        }),
        (field_name(), any::<u64>()).prop_map(|(field, value)| Cond::Greater {
            field,
            value,
            span: Span::default()
        }),
    ]
}

fn cond() -> impl Strategy<Value = Cond> {
    prop_oneof![operand(), vec(operand(), 2..4).prop_map(Cond::All)]
}

fn selector() -> impl Strategy<Value = Selector> {
    // Few masks, so that consecutive selected fields often share one and form a block.
    (
        prop::sample::select(vec!["mask", "flags", "select"]),
        screaming(),
    )
        .prop_map(|(mask, bit)| Selector {
            mask: mask.into(),
            bit,
            span: Span::default(),
        })
}

fn field() -> impl Strategy<Value = Field> {
    (
        docs(),
        field_name(),
        ty(),
        option::of(any::<i128>()),
        option::weighted(0.4, selector()),
        option::of(cond()),
    )
        .prop_map(|(docs, name, ty, constant, selector, cond)| Field {
            docs,
            name,
            name_span: Span::default(),
            ty,
            constant,
            selector,
            cond,
        })
}

fn record() -> impl Strategy<Value = Item> {
    (
        docs(),
        prop_oneof![Just(RecordKind::Record), Just(RecordKind::Frame)],
        any::<bool>(),
        pascal(),
        vec(field(), 0..6),
        vec(text(), 0..2),
    )
        .prop_map(|(docs, kind, packed, name, fields, trailing_comments)| {
            Item::Record(Record {
                docs,
                kind,
                packed,
                name,
                name_span: Span::default(),
                fields,
                trailing_comments,
                derived_from: None,
            })
        })
}

fn bit() -> impl Strategy<Value = Bit> {
    let kind = prop_oneof![
        (screaming(), any::<u8>(), option::of(screaming())).prop_map(|(name, index, requires)| {
            BitKind::Named {
                name,
                index,
                requires,
            }
        }),
        (any::<u8>(), any::<u8>()).prop_map(|(lo, hi)| BitKind::Reserved { lo, hi }),
    ];
    (docs(), kind).prop_map(|(docs, kind)| Bit {
        docs,
        kind,
        span: Span::default(),
    })
}

fn bits() -> impl Strategy<Value = Item> {
    (
        docs(),
        pascal(),
        1u8..=64,
        vec(bit(), 0..5),
        vec(text(), 0..2),
    )
        .prop_map(|(docs, name, width, bits, trailing_comments)| {
            Item::Bits(Bits {
                docs,
                name,
                name_span: Span::default(),
                width,
                bits,
                trailing_comments,
                derived_from: None,
            })
        })
}

fn union() -> impl Strategy<Value = Item> {
    let variant = (docs(), pascal(), any::<u64>()).prop_map(|(docs, record, tag)| Variant {
        docs,
        record,
        span: Span::default(),
        tag,
    });
    (
        docs(),
        pascal(),
        int_type(),
        vec(variant, 0..4),
        vec(text(), 0..2),
    )
        .prop_map(|(docs, name, tag, variants, trailing_comments)| {
            Item::Union(Union {
                docs,
                name,
                name_span: Span::default(),
                tag,
                variants,
                trailing_comments,
            })
        })
}

fn constant() -> impl Strategy<Value = Item> {
    let value = prop_oneof![
        any::<i128>().prop_map(ConstValue::Int),
        (pascal(), field_name())
            .prop_map(|(record, field)| ConstValue::MaxOffset { record, field }),
    ];
    (docs(), screaming(), int_type(), value).prop_map(|(docs, name, ty, value)| {
        Item::Const(Const {
            docs,
            name,
            name_span: Span::default(),
            ty,
            value,
            value_span: Span::default(),
        })
    })
}

fn name_ref() -> impl Strategy<Value = NameRef> {
    pascal().prop_map(|n| NameRef::new(n, Span::default()))
}

fn field_bit() -> impl Strategy<Value = FieldBit> {
    (snake(), screaming()).prop_map(|(field, bit)| FieldBit {
        field,
        bit,
        span: Span::default(),
    })
}

fn profile_name() -> impl Strategy<Value = ProfileName> {
    (docs(), name_ref()).prop_map(|(docs, name)| ProfileName { docs, name })
}

fn profile() -> impl Strategy<Value = Profile> {
    (
        (docs(), any::<bool>(), name_ref(), any::<u8>()),
        option::of(profile_name()),
        option::of((docs(), name_ref(), option::of(1u8..=64))),
        option::of(profile_name()),
        option::of((docs(), ty())),
        option::of(profile_name()),
        vec(text(), 0..2),
    )
        .prop_map(
            |((docs, packed, name, kind), change, mask, body, eid, prefix, trailing_comments)| {
                Profile {
                    docs,
                    packed,
                    name,
                    kind,
                    kind_span: Span::default(),
                    change,
                    mask: mask.map(|(docs, name, width)| ProfileMask { docs, name, width }),
                    body,
                    eid: eid.map(|(docs, ty)| ProfileType {
                        docs,
                        ty,
                        span: Span::default(),
                    }),
                    prefix,
                    trailing_comments,
                }
            },
        )
}

fn group_field() -> impl Strategy<Value = GroupField> {
    (
        docs(),
        field_name(),
        ty(),
        option::of((snake(), ty(), option::of(ty()))),
        option::of(ty()),
        coded(),
    )
        .prop_map(|(docs, name, ty, age, packed, coded)| match age {
            Some((age, aty, apacked)) => GroupField {
                docs,
                name,
                name_span: Span::default(),
                ty: Type::Int(IntType::unsigned(32)),
                age: Some(Age {
                    name: age,
                    name_span: Span::default(),
                    ty: aty,
                    packed: apacked,
                }),
                packed: None,
                coded,
            },
            None => GroupField {
                docs,
                name,
                name_span: Span::default(),
                ty,
                age: None,
                packed,
                coded,
            },
        })
}

/// `coded velocity`, `coded base` or nothing (the formatter prints what the parser reads,
/// valid where it stands or not).
fn coded() -> impl Strategy<Value = Option<CodedUse>> {
    option::of(prop_oneof![
        Just(CodedForm::Velocity),
        Just(CodedForm::Base)
    ])
    .prop_map(|f| {
        f.map(|form| CodedUse {
            form,
            span: Span::default(),
        })
    })
}

fn form() -> impl Strategy<Value = Form> {
    let wire = (
        docs(),
        field_name(),
        ty(),
        option::of(snake()),
        option::of(ty()),
        coded(),
    )
        .prop_map(|(docs, name, ty, step, packed, coded)| FormField {
            docs,
            name,
            name_span: Span::default(),
            ty,
            step: step.map(|s| NameRef::new(s, Span::default())),
            packed,
            coded,
        });
    (
        docs(),
        any::<bool>(),
        snake(),
        name_ref(),
        option::of(field_bit()),
        option::of(any::<u64>()),
        vec(wire, 0..3),
        vec(text(), 0..2),
    )
        .prop_map(
            |(docs, full, name, record, tier, reach, fields, trailing_comments)| Form {
                docs,
                kind: if full { FormKind::Full } else { FormKind::Step },
                name,
                name_span: Span::default(),
                record,
                tier: tier.filter(|_| full),
                reach: reach.filter(|_| !full),
                fields,
                trailing_comments,
            },
        )
}

fn group() -> impl Strategy<Value = Group> {
    (
        docs(),
        snake(),
        option::of(name_ref()),
        option::of(field_bit()),
        vec(group_field(), 0..3),
        vec(form(), 0..3),
        vec(text(), 0..2),
    )
        .prop_map(
            |(docs, name, record, presence, fields, forms, trailing_comments)| Group {
                docs,
                name,
                name_span: Span::default(),
                record,
                presence,
                fields,
                forms,
                trailing_comments,
            },
        )
}

fn state_member() -> impl Strategy<Value = StateMember> {
    prop_oneof![
        (docs(), name_ref(), vec(snake(), 0..4)).prop_map(|(docs, name, order)| {
            StateMember::Record(StateRecord {
                docs,
                name,
                order: order
                    .into_iter()
                    .map(|o| NameRef::new(o, Span::default()))
                    .collect(),
            })
        }),
        (
            docs(),
            snake().prop_filter("a member word", |s| s != "events" && s != "inputs"),
            name_ref()
        )
            .prop_map(|(docs, name, bits)| StateMember::Flags(StateFlagsField {
                docs,
                name: NameRef::new(name, Span::default()),
                bits,
            })),
        (docs(), name_ref()).prop_map(|(docs, union)| StateMember::Events { docs, union }),
        (docs(), name_ref()).prop_map(|(docs, record)| StateMember::Inputs { docs, record }),
        (docs(), name_ref(), any::<u8>()).prop_map(|(docs, name, kind)| StateMember::Ack(
            AckDecl {
                docs,
                name,
                kind,
                kind_span: Span::default(),
            }
        )),
        profile().prop_map(|p| StateMember::Frame(Box::new(p))),
        (
            docs(),
            name_ref(),
            any::<u8>(),
            option::of((docs(), snake())),
            vec(text(), 0..2)
        )
            .prop_map(|(docs, name, kind, tables, trailing_comments)| {
                StateMember::Coded(Box::new(CodedProfile {
                    docs,
                    name,
                    kind,
                    kind_span: Span::default(),
                    tables: tables.map(|(docs, file)| TablesPath {
                        docs,
                        path: format!("{file}.tables"),
                        span: Span::default(),
                        probs: Vec::new(),
                    }),
                    trailing_comments,
                }))
            }),
        group().prop_map(StateMember::Group),
    ]
}

fn state() -> impl Strategy<Value = Item> {
    (
        docs(),
        pascal(),
        vec(state_member(), 0..6),
        vec(text(), 0..2),
    )
        .prop_map(|(docs, name, members, trailing_comments)| {
            Item::State(State {
                docs,
                name,
                name_span: Span::default(),
                members,
                trailing_comments,
            })
        })
}

fn file() -> impl Strategy<Value = File> {
    (
        vec(text(), 0..3),
        endian(),
        vec(
            prop_oneof![constant(), bits(), record(), union(), state()],
            0..5,
        ),
        vec(text(), 0..2),
    )
        .prop_map(|(doc, endian, items, trailing_comments)| File {
            name: "random.wire".into(),
            doc,
            endian,
            items,
            trailing_comments,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn format_then_parse_gives_the_model_back(model in file()) {
        let text = format_file(&model);
        let parsed = match parse_file("random.wire", &text) {
            Ok(parsed) => parsed,
            Err(diags) => {
                let report: String = diags.iter().map(|d| d.render(&text)).collect();
                return Err(TestCaseError::fail(format!("{report}\n--- text ---\n{text}")));
            }
        };
        prop_assert_eq!(&parsed, &model, "text:\n{}", text);
        prop_assert_eq!(format_file(&parsed), text);
    }
}

#[test]
fn the_reference_protocol_files_are_canonical_after_one_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "wire") {
            continue;
        }
        let Ok(source) = std::fs::read_to_string(&path) else {
            continue;
        };
        let name = path.display().to_string();
        // A file being written may not parse yet; that is the parser tests' business.
        let Ok(model) = parse_file(&name, &source) else {
            continue;
        };
        let once = format_file(&model);
        let again = parse_file(&name, &once).expect("formatted text parses");
        assert_eq!(again, model, "{name}");
        assert_eq!(format_file(&again), once, "{name}");
    }
}
