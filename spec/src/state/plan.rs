//! A state resolved: [`StatePlan`], built once by [`StatePlan::resolve`], which is also where
//! every misuse of a state is found and located.

use crate::diag::Diagnostic;
use crate::index::{Decl, Index};
use crate::model::{
    bucket_bases, BitKind, Bits, CodedForm, CodedProfile, CodedUse, FieldBit, Form, FormKind,
    Group, IntType, NameRef, Profile, Span, State, StateMember, Type,
};
use std::collections::{BTreeMap, BTreeSet};

/// A state, resolved: everything a binding generator prints, in the order it prints it.
///
/// The names are the generated items' (the derived records and frames, the schema types); the
/// bits are the masks' and the flags'; each group says which record fields it holds and how each
/// travels in each of its forms. `spec/LANGUAGE.md` ("Replicated state") says what a binding
/// does with it; the Rust codec's `acked` machines, and the TypeScript, C++ and C# ones, run
/// over what is generated from it.
#[derive(Debug, Clone, PartialEq)]
pub struct StatePlan {
    /// The state's name: the acked schema type of the byte-aligned frame.
    pub name: String,
    /// The state's documentation (the schema type's).
    pub docs: Vec<String>,
    /// The file the state is declared in.
    pub file: String,
    /// The record a state holds per entity, in canonical order (what the check hashes).
    pub record: RecordLayout,
    /// The record's bit-set field, when the state has tiers or optional groups.
    pub flags: Option<FlagsField>,
    /// The groups, in declaration order (mask bit `i` is group `i`).
    pub groups: Vec<GroupPlan>,
    /// The union of events every acked frame carries.
    pub events: String,
    /// The record of inputs the ack frame carries, with a `tick: u32` field (the server tick
    /// it is aimed at).
    pub inputs: Option<String>,
    /// The ack frame.
    pub ack: Option<AckPlan>,
    /// The acked frames' flags bit set (KEYFRAME, CHECK), named after the first frame.
    pub acked_flags: String,
    /// The frames the state is sent in, in declaration order: at most one byte-aligned and
    /// one bit-packed.
    pub profiles: Vec<ProfilePlan>,
    /// The staged change: the wire's integers of one change, whichever profile read it.
    pub staged: StagedPlan,
    /// The record as the client's decoder keeps it, in u64 words.
    pub slot: SlotPlan,
    /// The group whose tick the machines report as "measured at" (the first with a tick).
    pub measured: Option<usize>,
    /// The group whose tier the machines report as "came full" (the first with a tier).
    pub tiered: Option<usize>,
    /// The session constants the spec declares (`SENT_RING`, `HELD_RING`, `EVENT_TTL`,
    /// `CHECK_EVERY`, `RELIABLE_ABOVE`), by name: the machines' defaults (acked.wire's values)
    /// hold for those it does not.
    pub constants: Vec<(String, i128)>,
    /// The coded frame (`coded frame Name = kind`), when the state declares one.
    pub coded: Option<CodedPlan>,
}

/// A state's coded frame (`docs/spec/coded.md`): the packed frame's header and changes, the
/// changes range-coded value by value, each under a model of its own (CODE-15).
#[derive(Debug, Clone, PartialEq)]
pub struct CodedPlan {
    /// The frame's name.
    pub frame: String,
    /// The frame's name in snake_case: what a session half sends it as.
    pub frame_name: String,
    /// Its kind byte.
    pub kind: u8,
    /// Its documentation.
    pub docs: Vec<String>,
    /// The packed frame whose header it keeps and whose body type its changes decode to.
    pub packed_frame: String,
    /// The tables file as the declaration names it (relative to the layout file).
    pub tables: Option<String>,
    /// The starting probability of every slot, in model order, read from the tables file
    /// (CODE-16); empty: every slot starts at 2048.
    pub probs: Vec<u16>,
    /// The models, in the order their values are first coded (CODE-15).
    pub models: Vec<CodedModel>,
}

/// One model of a coded frame: the field path it is named by and the widest value it codes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodedModel {
    /// The field's path in the change (`eid`, `pose_step.dx`, `orient.q.same`).
    pub name: String,
    /// `W`, the bits of the largest value coded (CODE-10..CODE-14).
    pub w: u8,
    /// Its first slot among the frame's slots (the slots of the models before it).
    pub at: usize,
}

impl CodedPlan {
    /// Every model's slots together (CODE-8).
    pub fn slots(&self) -> usize {
        self.models.last().map_or(0, |m| m.at + model_slots(m.w))
    }

    /// The model named `name`.
    pub fn model(&self, name: &str) -> Option<&CodedModel> {
        self.models.iter().find(|m| m.name == name)
    }
}

/// The slots of a model of `w` bits (CODE-8): the bit length's tree of `k` bits (`k` the bit
/// length of `w`), then for each length `L` from 2 to `w` a tree over the first `min(L - 1, 3)`
/// bits below the highest one and a slot for each further bit.
pub fn model_slots(w: u8) -> usize {
    let k = bit_length(u128::from(w));
    let mut slots = (1usize << k) - 1;
    for l in 2..=usize::from(w) {
        let t = (l - 1).min(3);
        slots += (1 << t) - 1 + (l - 1 - t);
    }
    slots
}

/// The bit length of `v`: 0 for 0, else the position of its highest one bit plus one.
pub fn bit_length(v: u128) -> u32 {
    128 - v.leading_zeros()
}

/// The zigzag code of `v` (0, -1, 1, -2 ... as 0, 1, 2, 3 ...).
pub fn zigzag(v: i128) -> u128 {
    if v >= 0 {
        (v as u128) << 1
    } else {
        ((-(v + 1)) as u128) << 1 | 1
    }
}

/// The most optional groups a state may have: a decoder's slot keeps which an entity holds in
/// the bits of one byte, beside the bit that says it holds an entity.
pub const MAX_OPTIONAL: usize = 7;

/// The session constants a state's machines read from its spec, when declared.
pub const SESSION_CONSTANTS: [&str; 5] = [
    "SENT_RING",
    "HELD_RING",
    "EVENT_TTL",
    "CHECK_EVERY",
    "RELIABLE_ABOVE",
];

/// The state's record: its fields in canonical order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordLayout {
    /// The record's name.
    pub name: String,
    /// The record's documentation.
    pub docs: Vec<String>,
    /// The fields, in the order of the record's canonical bytes.
    pub fields: Vec<RecordField>,
}

/// One field of the state's record.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordField {
    /// The field's name.
    pub name: String,
    /// What it holds.
    pub holds: Holds,
    /// Its type in the record (a quantized field's integer, a nested group's record).
    pub ty: Type,
    /// Its size in the canonical bytes.
    pub bytes: u32,
    /// The flags bit under which it is present (an optional group); `None`: always.
    pub present: Option<FlagBit>,
}

/// What a record field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// Field `field` of group `group`.
    Field {
        /// The group's index.
        group: usize,
        /// The field's index in the group.
        field: usize,
    },
    /// The flags field.
    Flags,
    /// A nested group: its record whole (an optional group, or one holding a quaternion).
    Group(usize),
}

/// The record's bit-set field.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagsField {
    /// The field's name in the record.
    pub name: String,
    /// The bit set's name.
    pub bits: String,
    /// Its width in bits.
    pub width: u8,
}

/// A named bit of a bit set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlagBit {
    /// Its name.
    pub name: String,
    /// Its index, 0 the least significant.
    pub index: u8,
}

/// One group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupPlan {
    /// The group's name (`snake_case`).
    pub name: String,
    /// Its documentation.
    pub docs: Vec<String>,
    /// Its bit in every change mask: its place in declaration order.
    pub bit: u8,
    /// Its mask bit's name (`SCREAMING_CASE` of the name).
    pub bit_name: String,
    /// The record the state holds for a nested group, and the wire record of a group of one
    /// form (`Health`, `Orientation`).
    pub record: String,
    /// The state record holds the group as its record whole: an optional group, or one
    /// holding a quaternion (a packed record).
    pub nested: bool,
    /// The group's record is a packed record (it holds a quaternion): both profiles carry it.
    pub packed_record: bool,
    /// An optional group's presence bit in the flags.
    pub presence: Option<FlagBit>,
    /// The fields the record holds.
    pub fields: Vec<FieldPlan>,
    /// The field measured at a tick, and how its age travels.
    pub tick: Option<TickPlan>,
    /// The flags bit that keeps which form the group came in (`POSE_FULL`): set by the full
    /// form. Without it the encoder picks the step form when every field can step.
    pub tier: Option<FlagBit>,
    /// The mask bit that says a change carries the full form (`POSE_FULL`): with two forms.
    pub full_bit_name: Option<String>,
    /// The mask bit that says a change carries the tick's age (`POSE_AGE`).
    pub age_bit_name: Option<String>,
    /// The forms: one ([`FormRole::Only`]), or the full then the step form.
    pub forms: Vec<FormPlan>,
    /// The step form's reach: steps count from the base's values when every stepped field of
    /// the base lies within `-reach..=reach`, from 0 otherwise. `None`: from the base's
    /// values whenever the base holds the entity.
    pub reach: Option<u64>,
}

impl GroupPlan {
    /// The form playing `role`, if the group has it.
    pub fn form(&self, role: FormRole) -> Option<&FormPlan> {
        self.forms.iter().find(|f| f.role == role)
    }

    /// The form a whole entity sends the group in: its full form when it has two, its only
    /// one otherwise. A datagram or NetBaseline component carries it (DG-6).
    pub fn whole_form(&self) -> Option<&FormPlan> {
        self.form(FormRole::Only)
            .or_else(|| self.form(FormRole::Full))
    }

    /// The fields the step form steps, in field order.
    pub fn stepped(&self) -> Vec<usize> {
        self.form(FormRole::Step)
            .map(|f| {
                f.wire
                    .iter()
                    .filter(|w| w.carry == Carry::Step)
                    .map(|w| w.field)
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One field of a group, as the record holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldPlan {
    /// Its name (a field of the state's record, unless the group is nested).
    pub name: String,
    /// Its documentation.
    pub docs: Vec<String>,
    /// What it is.
    pub value: Value,
}

/// A group field's value in the record.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer; a quantized field's (`quant(T, s)`) with its unit `num/den`.
    Int {
        /// Signed.
        signed: bool,
        /// Width in bits.
        bits: u8,
        /// The unit of a quantized field: the value is the integer times `num/den`.
        unit: Option<(u64, u64)>,
    },
    /// A float.
    Float {
        /// 32 or 64.
        bits: u8,
    },
    /// A bool.
    Bool,
    /// A declared bit set.
    Bits {
        /// Its name.
        name: String,
        /// Its width.
        width: u8,
    },
    /// A smallest-three quaternion of `bits` bits a component.
    Quat {
        /// The bits of each component sent.
        bits: u8,
    },
    /// A tick (u32): the group was measured then; a change carries its age.
    Tick,
}

impl Value {
    /// The integer range of an integer or tick value.
    pub fn range(&self) -> Option<(i128, i128)> {
        match self {
            Value::Int { signed, bits, .. } => {
                let t = IntType {
                    signed: *signed,
                    bits: *bits,
                    endian: None,
                };
                Some((t.min(), t.max()))
            }
            Value::Tick => Some((0, i128::from(u32::MAX))),
            _ => None,
        }
    }
}

/// How a group's tick travels: as its age (the frame's tick minus it), when not 0.
#[derive(Debug, Clone, PartialEq)]
pub struct TickPlan {
    /// The tick field's index in the group.
    pub field: usize,
    /// The change's field holding the age.
    pub age: String,
    /// The age's type in a byte-aligned change (unsigned).
    pub wire: IntType,
    /// The age's code in a packed change.
    pub packed: Type,
}

/// Which form a form is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormRole {
    /// The group's one form: its fields as declared.
    Only,
    /// The full form (the mask's full bit set).
    Full,
    /// The step form (the bit clear).
    Step,
}

/// One form of a group: its record on the wire and how each field travels in it.
#[derive(Debug, Clone, PartialEq)]
pub struct FormPlan {
    /// Only, full or step.
    pub role: FormRole,
    /// The change's field holding it (`pose_full`, `health`).
    pub field: String,
    /// Its documentation.
    pub docs: Vec<String>,
    /// Its record in a byte-aligned change.
    pub record: String,
    /// Its record in a packed change (the same record when [`Self::packed`]).
    pub packed_record: String,
    /// The record is a packed record already (it holds a quaternion).
    pub packed: bool,
    /// The wire fields, in order.
    pub wire: Vec<WirePlan>,
    /// The record's size in a byte-aligned change, in bytes (a packed record's bits padded to
    /// a byte), when every field has a fixed size.
    pub bytes: Option<u32>,
}

/// One field of a form's record.
#[derive(Debug, Clone, PartialEq)]
pub struct WirePlan {
    /// Its name.
    pub name: String,
    /// Its documentation.
    pub docs: Vec<String>,
    /// The group field it carries.
    pub field: usize,
    /// How.
    pub carry: Carry,
    /// Its type in a byte-aligned change.
    pub ty: Type,
    /// Its code in a packed change.
    pub packed: Type,
    /// The range of its wire integer in a byte-aligned change (what every profile's code
    /// must hold, and what a packed decoder refuses past), for an integer.
    pub range: Option<(i128, i128)>,
    /// Its first byte in its byte-aligned record (its first bit, in a packed record), when
    /// every field before it has a fixed size.
    pub offset: Option<u32>,
    /// How a coded frame predicts it (`coded velocity`, `coded base`); none: coded as its
    /// packed value.
    pub coded: Option<CodedForm>,
}

/// How a wire field carries its group field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carry {
    /// The wire integer is the field's integer divided by `by` (1: the same; a coarser
    /// quantization otherwise, refused on encode when it does not divide).
    Scaled {
        /// The ratio of the wire's unit to the field's.
        by: u64,
    },
    /// The wire is a float of the field's value (its integer times its unit, a power of
    /// two): exact while the integer's magnitude is below `limit`.
    Float {
        /// 32 or 64.
        bits: u8,
        /// The field's unit, `num/den`, both powers of two.
        num: u64,
        /// See `num`.
        den: u64,
        /// The integers an f32 (2^24) or f64 (2^53) holds exactly, capped by the field's type.
        limit: u64,
    },
    /// The wire integer is the field less the base's (see [`GroupPlan::reach`]).
    Step,
    /// The field itself: a float, bool, bit set or quaternion, carried as it is.
    Itself,
}

/// The ack frame.
#[derive(Debug, Clone, PartialEq)]
pub struct AckPlan {
    /// The frame's name.
    pub frame: String,
    /// Its kind byte.
    pub kind: u8,
    /// Its flags bit set (KEYFRAME_REQUEST).
    pub flags: String,
}

/// One frame the state is sent in.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfilePlan {
    /// The changes are a bit stream (kind 12's family).
    pub packed: bool,
    /// The frame's name.
    pub frame: String,
    /// The frame's name in snake_case: what a session half sends it as.
    pub frame_name: String,
    /// Its kind byte.
    pub kind: u8,
    /// The acked schema type of this frame: the state's name, or `Packed` then it.
    pub schema: String,
    /// The change record.
    pub change: String,
    /// The change mask's bit set.
    pub mask: String,
    /// Its width.
    pub mask_width: u8,
    /// Each group's full bit in this mask (with two forms).
    pub full_bits: Vec<Option<u8>>,
    /// Each group's age bit in this mask (with a tick).
    pub age_bits: Vec<Option<u8>>,
    /// The packed record holding the changes (packed only).
    pub body: Option<String>,
    /// How a change's id travels: `u16` byte-aligned, the gap's code packed.
    pub eid: Type,
    /// What the packed group records are named before their byte-aligned names.
    pub prefix: String,
}

impl ProfilePlan {
    /// Every bit the mask names.
    pub fn named(&self) -> u64 {
        let groups = self.full_bits.len();
        let mut m = (1u64 << groups) - 1;
        for b in self.full_bits.iter().chain(&self.age_bits).flatten() {
            m |= 1 << b;
        }
        m
    }
}

/// The staged change: what a decoder keeps of a change between reading a frame and applying
/// it, the wire's integers in plain fields (a group the mask does not select holds zeros).
#[derive(Debug, Clone, PartialEq)]
pub struct StagedPlan {
    /// Its type name (`Staged` then the byte-aligned change's name).
    pub name: String,
    /// The mask's width (the byte-aligned profile's, or the packed one's without one): a
    /// staged mask has that profile's bits.
    pub mask_width: u8,
    /// The fields, one per group field and one per age.
    pub fields: Vec<StagedField>,
}

/// One field of the staged change.
#[derive(Debug, Clone, PartialEq)]
pub struct StagedField {
    /// Its name (the group field's, or the age's).
    pub name: String,
    /// What it holds.
    pub holds: StagedHolds,
    /// Signed.
    pub signed: bool,
    /// Width: 8, 16, 32 or 64, enough for every form's wire value (a float's bits).
    pub bits: u8,
}

/// What a staged field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StagedHolds {
    /// Field `field` of group `group`, as the form the mask says carries it (a float's bits, a
    /// step, a coarser integer, a quaternion's bits as its record lays them).
    Field {
        /// The group.
        group: usize,
        /// The field.
        field: usize,
    },
    /// Group `group`'s age.
    Age(usize),
}

/// The record as the client's decoder keeps it: every field at a fixed byte of `words` u64
/// words (little endian within each), none across two words, and a last byte saying what the
/// slot holds: 0 for no entity, else bit 7 and, in bit `i`, whether the record holds its `i`-th
/// optional group (in canonical order). The record's flags keep their own bits as they are, so a
/// corrupt record (a presence bit without its group) still differs from a sound one.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotPlan {
    /// Its type name (the record's name then `Slot`).
    pub name: String,
    /// How many u64 words.
    pub words: u32,
    /// Each record field's place, in canonical order (the index is the record field's).
    pub fields: Vec<SlotField>,
    /// The byte saying what the slot holds.
    pub holds_at: u32,
}

/// Where a record field lies in a slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotField {
    /// Its first byte.
    pub at: u32,
    /// Its size in bytes.
    pub bytes: u32,
}

impl StatePlan {
    /// The byte-aligned profile.
    pub fn byte_profile(&self) -> Option<&ProfilePlan> {
        self.profiles.iter().find(|p| !p.packed)
    }

    /// The bit-packed profile.
    pub fn packed_profile(&self) -> Option<&ProfilePlan> {
        self.profiles.iter().find(|p| p.packed)
    }

    /// The record's canonical size without its optional groups.
    pub fn record_bytes(&self) -> u32 {
        self.record
            .fields
            .iter()
            .filter(|f| f.present.is_none())
            .map(|f| f.bytes)
            .sum()
    }

    /// `apply`'s fault for an entity that comes whole without every required group.
    pub fn whole_fault(&self) -> &'static str {
        "an entity comes whole without every group"
    }

    /// `apply`'s fault for a tick whose age is past the frame's tick.
    pub fn tick_fault(&self, group: &GroupPlan) -> String {
        format!("a {} measured before tick 0", group.name)
    }

    /// `apply`'s fault for a float that is not a whole number of the field's units.
    pub fn grid_fault(&self, group: &GroupPlan) -> String {
        format!("a full {} off its grid", group.name)
    }

    /// `apply`'s fault for a step or scaled value past the field's type.
    pub fn range_fault(&self, group: &GroupPlan) -> String {
        format!("a {} step past its range", group.name)
    }
}

// ------------------------------------------------------------------------------------------
// Resolution

/// Names in `SCREAMING_CASE`.
pub(crate) fn screaming(name: &str) -> String {
    name.to_ascii_uppercase()
}

/// Names in `PascalCase`.
pub(crate) fn pascal(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// Names in `snake_case` (`AckedPacked` to `acked_packed`).
pub(crate) fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

struct Resolver<'a, 's> {
    state: &'s State,
    index: &'a Index<'s>,
    file: &'a str,
    out: Vec<Diagnostic>,
    /// Where `coded velocity` and `coded base` were written, to refuse them in a state
    /// without a coded frame.
    coded_uses: Vec<Span>,
}

impl Resolver<'_, '_> {
    fn error(&mut self, span: Span, message: impl Into<String>, label: impl Into<String>) {
        self.out
            .push(Diagnostic::new(self.file, span, message, label));
    }

    /// A member that may appear once: the second is reported.
    fn once<T>(&mut self, slot: &mut Option<T>, v: T, span: Span, what: &str) {
        if slot.is_some() {
            self.error(
                span,
                format!("state `{}` has two {what}", self.state.name),
                "remove this member",
            );
        } else {
            *slot = Some(v);
        }
    }
}

impl StatePlan {
    /// Resolves `state` against the spec's other declarations (`index`), reporting every
    /// misuse at the place it was written (in file `file`).
    pub fn resolve(
        state: &State,
        index: &Index<'_>,
        file: &str,
    ) -> Result<StatePlan, Vec<Diagnostic>> {
        let mut r = Resolver {
            state,
            index,
            file,
            out: Vec::new(),
            coded_uses: Vec::new(),
        };
        let plan = r.plan();
        match plan {
            Some(p) if r.out.is_empty() => Ok(p),
            _ => {
                if r.out.is_empty() {
                    r.error(
                        state.name_span,
                        format!("state `{}` cannot be resolved", state.name),
                        "see the other problems reported",
                    );
                }
                Err(r.out)
            }
        }
    }
}

impl<'s> Resolver<'_, 's> {
    fn plan(&mut self) -> Option<StatePlan> {
        let st = self.state;
        // The one-of members.
        let (mut record, mut flags, mut events, mut inputs, mut ack) =
            (None, None, None, None, None);
        let (mut byte, mut packed, mut coded) = (None, None, None);
        for m in &st.members {
            match m {
                StateMember::Record(x) => {
                    self.once(&mut record, x, x.name.span, "`record` members")
                }
                StateMember::Flags(x) => self.once(&mut flags, x, x.name.span, "flags fields"),
                StateMember::Events { union, .. } => {
                    self.once(&mut events, union, union.span, "`events` members")
                }
                StateMember::Inputs { record: r, .. } => {
                    self.once(&mut inputs, r, r.span, "`inputs` members")
                }
                StateMember::Ack(a) => self.once(&mut ack, a, a.name.span, "`ack` frames"),
                StateMember::Frame(p) if p.packed => {
                    self.once(&mut packed, p, p.name.span, "packed frames")
                }
                StateMember::Frame(p) => {
                    self.once(&mut byte, p, p.name.span, "byte-aligned frames")
                }
                StateMember::Coded(c) => {
                    self.once(&mut coded, c.as_ref(), c.name.span, "coded frames")
                }
                StateMember::Group(_) => {}
            }
        }
        let Some(record) = record else {
            self.error(
                st.name_span,
                format!("state `{}` has no `record`", st.name),
                "expected a member `record Name,` naming the record a state holds per entity",
            );
            return None;
        };
        let Some(events) = events else {
            self.error(
                st.name_span,
                format!("state `{}` has no `events`", st.name),
                "expected a member `events: Union,` naming the union every acked frame carries",
            );
            return None;
        };
        if byte.is_none() {
            self.error(
                st.name_span,
                format!("state `{}` has no byte-aligned frame", st.name),
                "expected a member `frame Name = kind { ... }` (a packed frame re-codes its changes)",
            );
        }
        if ack.is_none() && inputs.is_none() {
            self.error(
                st.name_span,
                format!("state `{}` has no ack frame", st.name),
                "expected `ack Name = kind,` and `inputs: Record,`: the client acknowledges frames with them",
            );
        }
        if self.index.union(&events.name).is_none() {
            self.error(
                events.span,
                format!("`{}` is not a union declared in the spec", events.name),
                "expected the union of the game's events",
            );
        }
        let inputs = match (inputs, ack) {
            (Some(i), Some(_)) => {
                self.inputs(i);
                Some(i.name.clone())
            }
            (Some(i), None) => {
                self.error(
                    i.span,
                    "inputs travel in the ack frame, which the state does not declare",
                    "declare `ack Name = kind,` or remove `inputs`",
                );
                None
            }
            (None, Some(a)) => {
                self.error(
                    a.name.span,
                    "the ack frame carries inputs, which the state does not declare",
                    "declare `inputs: Record,` (a record with `tick: u32`)",
                );
                None
            }
            (None, None) => None,
        };
        let flags_bits = flags.and_then(|f| {
            let bits = self.index.bits(&f.bits.name);
            if bits.is_none() {
                self.error(
                    f.bits.span,
                    format!("`{}` is not a bit set declared in the spec", f.bits.name),
                    "the flags field holds the groups' tier and presence bits: expected a `bits` item",
                );
            }
            bits.filter(|b| {
                let ok = matches!(b.width, 8 | 16 | 32 | 64);
                if !ok {
                    self.error(
                        f.bits.span,
                        format!("the flags `{}` are {} bits wide", b.name, b.width),
                        "the record is byte-aligned: expected a bit set of u8, u16, u32 or u64",
                    );
                }
                ok
            })
        });
        let flags_field = flags.map(|f| f.name.name.as_str());
        // The flags bits used, to report the unused ones and the ones used twice.
        let mut used_bits: BTreeMap<String, Span> = BTreeMap::new();
        let mut groups = Vec::new();
        let mut field_names: BTreeMap<String, Span> = BTreeMap::new();
        if let Some(f) = flags {
            field_names.insert(f.name.name.clone(), f.name.span);
        }
        let mut records: BTreeMap<String, Span> = BTreeMap::new();
        for (i, g) in st.groups().enumerate() {
            if let Some(plan) = self.group(
                i,
                g,
                flags_field,
                flags_bits,
                &mut used_bits,
                &mut field_names,
                &mut records,
            ) {
                groups.push(plan);
            }
        }
        let optional = groups.iter().filter(|g| g.presence.is_some()).count();
        if optional > MAX_OPTIONAL {
            self.error(
                st.name_span,
                format!("state `{}` has {optional} optional groups", st.name),
                format!("a state has at most {MAX_OPTIONAL} (a decoder's slot keeps which it holds in one byte)"),
            );
        }
        if groups.is_empty() && st.groups().next().is_none() {
            self.error(
                st.name_span,
                format!("state `{}` has no group", st.name),
                "expected `group name { field: type, ... }`",
            );
        }
        // An unused bit is only told when nothing else is wrong: a misnamed bit would otherwise
        // be told twice.
        if let (Some(f), Some(b), true) = (flags, flags_bits, self.out.is_empty()) {
            for bit in &b.bits {
                if let BitKind::Named { name, .. } = &bit.kind {
                    if !used_bits.contains_key(name) {
                        self.error(
                            f.bits.span,
                            format!("flags bit `{name}` of `{}` says nothing of a group", b.name),
                            "each named bit is a form's tier (`full ... if flags.BIT`) or a group's presence (`group ... if flags.BIT`)",
                        );
                    }
                }
            }
        }
        if flags.is_none()
            && groups
                .iter()
                .any(|g| g.tier.is_some() || g.presence.is_some())
        {
            // Reported where the bit is named (see `flag_bit`).
        }
        let fields = self.record_order(record, &groups, flags)?;
        let profiles: Vec<ProfilePlan> = [byte, packed]
            .into_iter()
            .flatten()
            .filter_map(|p| self.profile(p, &groups))
            .collect();
        // A packed frame's group records: the byte-aligned ones renamed, a packed one shared.
        let prefix = profiles
            .iter()
            .find(|p| p.packed)
            .map_or("Packed", |p| p.prefix.as_str());
        for g in &mut groups {
            for f in &mut g.forms {
                f.packed = g.packed_record && f.role == FormRole::Only;
                layout(f, &g.fields);
                f.packed_record = if f.packed {
                    f.record.clone()
                } else {
                    format!("{prefix}{}", f.record)
                };
            }
        }
        // The acked frames' flags are named after the first frame declared.
        let first = st.frames().next()?;
        let acked_flags = format!("{}Flags", first.name.name);
        let ack = ack.map(|a| AckPlan {
            frame: a.name.name.clone(),
            kind: a.kind,
            flags: format!("{}Flags", a.name.name),
        });
        if groups.len() != st.groups().count() {
            return None;
        }
        let change = profiles
            .iter()
            .find(|p| !p.packed)
            .or(profiles.first())
            .map(|p| p.change.clone())?;
        let coded = self.coded(
            coded,
            [byte.map(|p| &**p), packed.map(|p| &**p)],
            ack.as_ref(),
            &groups,
            &profiles,
        );
        let staged = staged(&groups, &profiles, &change);
        let slot = slot(&record.name.name, &fields);
        let measured = groups.iter().position(|g| g.tick.is_some());
        let tiered = groups.iter().position(|g| g.tier.is_some());
        let constants = SESSION_CONSTANTS
            .iter()
            .filter_map(|name| match self.index.get(name) {
                Some(Decl::Const(c)) => Some((name.to_string(), self.index.const_value(c)?)),
                _ => None,
            })
            .collect();
        Some(StatePlan {
            name: st.name.clone(),
            docs: st.docs.doc.clone(),
            file: self.file.to_string(),
            record: RecordLayout {
                name: record.name.name.clone(),
                docs: record.docs.doc.clone(),
                fields,
            },
            flags: flags.zip(flags_bits).map(|(f, b)| FlagsField {
                name: f.name.name.clone(),
                bits: b.name.clone(),
                width: b.width,
            }),
            groups,
            events: events.name.clone(),
            inputs,
            ack,
            acked_flags,
            profiles,
            staged,
            slot,
            measured,
            tiered,
            constants,
            coded,
        })
    }

    /// A field's `coded ...`: `coded velocity` on a step field (`step`), `coded base` on a
    /// `quat(B)`; refused elsewhere.
    fn coded_use(
        &mut self,
        c: Option<CodedUse>,
        step: bool,
        ty: &Type,
        name: &str,
    ) -> Option<CodedForm> {
        let c = c?;
        self.coded_uses.push(c.span);
        match c.form {
            CodedForm::Velocity if !step => {
                self.error(
                    c.span,
                    format!("`coded velocity` on `{name}`, which is not a step field"),
                    "a velocity predicts a step: write it on `d: iN step F` in a step form",
                );
                None
            }
            CodedForm::Base if !matches!(ty, Type::Quat { .. }) => {
                self.error(
                    c.span,
                    format!("`coded base` on `{name}`, which is not a quaternion"),
                    "`coded base` codes a `quat(B)` as its difference from the base's",
                );
                None
            }
            form => Some(form),
        }
    }

    /// The coded frame: one, in a state with a packed frame, of a kind of its own; its
    /// models (CODE-10..CODE-15). Every `coded ...` of a field needs it.
    fn coded(
        &mut self,
        coded: Option<&CodedProfile>,
        frames: [Option<&Profile>; 2],
        ack: Option<&AckPlan>,
        groups: &[GroupPlan],
        profiles: &[ProfilePlan],
    ) -> Option<CodedPlan> {
        let Some(c) = coded else {
            if let Some(&span) = self.coded_uses.first() {
                self.error(
                    span,
                    format!("state `{}` has no coded frame", self.state.name),
                    "a field's `coded ...` says how a coded frame predicts it: declare `coded frame Name = kind { }` or remove it",
                );
            }
            return None;
        };
        let Some(packed) = profiles.iter().find(|p| p.packed) else {
            self.error(
                c.name.span,
                format!("coded frame `{}` in a state without a packed frame", c.name.name),
                "a coded frame re-codes the packed frame's changes: declare `packed frame Name = kind { ... }`",
            );
            return None;
        };
        let kinds = frames
            .iter()
            .flatten()
            .map(|p| (p.kind, p.name.name.as_str()))
            .chain(ack.map(|a| (a.kind, a.frame.as_str())));
        for (kind, other) in kinds {
            if kind == c.kind {
                self.error(
                    c.kind_span,
                    format!(
                        "coded frame `{}` has kind {kind}, as `{other}` has",
                        c.name.name
                    ),
                    "each frame of a state has a kind of its own",
                );
            }
        }
        if self.index.get(&c.name.name).is_some() {
            self.error(
                c.name.span,
                format!("`{}` is declared elsewhere in the spec", c.name.name),
                "the coded frame's name is a generated type: choose another",
            );
        }
        let mut models = Vec::new();
        let mut model = |name: String, w: u8| {
            let at = models
                .last()
                .map_or(0, |m: &CodedModel| m.at + model_slots(m.w));
            models.push(CodedModel { name, w, at });
        };
        let width = |v: u128| u8::try_from(bit_length(v)).unwrap_or(u8::MAX);
        model(
            "eid".into(),
            code_range(&packed.eid).map_or(0, |(_, hi)| width(hi.max(0) as u128)),
        );
        model("mask".into(), packed.mask_width);
        for g in groups {
            if let Some(t) = &g.tick {
                model(t.age.clone(), self.code_width(&t.packed));
            }
        }
        for g in groups {
            for f in &g.forms {
                for w in &f.wire {
                    let path = format!("{}.{}", f.field, w.name);
                    match (&w.packed, w.coded) {
                        (_, Some(CodedForm::Velocity)) => {
                            let (lo, hi) = w.range.unwrap_or((0, 0));
                            model(path, width(zigzag(hi - lo)));
                        }
                        (Type::Quat { bits, .. }, coded) => {
                            if coded == Some(CodedForm::Base) {
                                model(format!("{path}.same"), 1);
                                let d = width(zigzag((1i128 << bits) - 1));
                                for i in 0..3 {
                                    model(format!("{path}.d{i}"), d);
                                }
                            }
                            model(format!("{path}.largest"), 2);
                            for i in 0..3 {
                                model(format!("{path}.c{i}"), *bits);
                            }
                        }
                        (ty, _) => model(path, self.code_width(ty)),
                    }
                }
            }
        }
        let probs = c.tables.as_ref().map_or(Vec::new(), |t| t.probs.clone());
        Some(CodedPlan {
            frame: c.name.name.clone(),
            frame_name: snake(&c.name.name),
            kind: c.kind,
            docs: c.docs.doc.clone(),
            packed_frame: packed.frame.clone(),
            tables: c.tables.as_ref().map(|t| t.path.clone()),
            probs,
            models,
        })
    }

    /// `W` of a value coded as its packed code `ty` (CODE-12): the bit length of the code's
    /// largest value, a signed code's largest zigzag code, a float's bits, a bool's 1, a bit
    /// set's width.
    fn code_width(&self, ty: &Type) -> u8 {
        let width = |v: u128| u8::try_from(bit_length(v)).unwrap_or(u8::MAX);
        match ty {
            Type::Int(t) => t.bits,
            Type::Float { bits, .. } => *bits,
            Type::Bool => 1,
            Type::Quant { wire, .. } => self.code_width(wire),
            Type::Bucket { .. } | Type::Ranged { .. } => match code_range(ty) {
                Some((lo, hi)) if lo < 0 => width(zigzag(lo).max(zigzag(hi))),
                Some((lo, hi)) => width((hi - lo) as u128),
                None => 64,
            },
            Type::Named { name, .. } => self.index.bits(name).map_or(64, |b| b.width),
            _ => 64,
        }
    }

    /// The inputs' record: declared, with `tick: u32`.
    fn inputs(&mut self, i: &NameRef) {
        match self.index.record(&i.name) {
            None => self.error(
                i.span,
                format!("`{}` is not a record declared in the spec", i.name),
                "expected the record of the game's inputs",
            ),
            Some(r) => {
                let tick = r.fields.iter().find(|f| f.name == "tick");
                let ok = tick.is_some_and(|f| {
                    f.cond.is_none()
                        && f.selector.is_none()
                        && matches!(
                            f.ty,
                            Type::Int(IntType {
                                signed: false,
                                bits: 32,
                                ..
                            })
                        )
                });
                if !ok {
                    self.error(
                        i.span,
                        format!("inputs `{}` have no field `tick: u32`", i.name),
                        "an input is aimed at a server tick: expected a field `tick: u32` (always present)",
                    );
                }
            }
        }
    }

    /// A flags bit written as `field.BIT`: the state's flags field, a bit it names, used once.
    fn flag_bit(
        &mut self,
        b: &FieldBit,
        flags_field: Option<&str>,
        bits: Option<&Bits>,
        used: &mut BTreeMap<String, Span>,
    ) -> Option<FlagBit> {
        let Some(field) = flags_field else {
            self.error(
                b.span,
                format!(
                    "`{}.{}` names a flags bit, and the state has no flags field",
                    b.field, b.bit
                ),
                "declare the record's bit set as a member `flags: Bits,`",
            );
            return None;
        };
        if b.field != field {
            self.error(
                b.span,
                format!("`{}` is not the state's flags field", b.field),
                format!("expected `{field}.BIT`"),
            );
            return None;
        }
        let bits = bits?;
        let Some(index) = Index::bit_index(bits, &b.bit) else {
            self.error(
                b.span,
                format!("`{}` has no bit `{}`", bits.name, b.bit),
                "expected a bit the flags' bit set names",
            );
            return None;
        };
        if let Some(first) = used.get(&b.bit) {
            let note = format!("`{}` is first used at byte {}", b.bit, first.start);
            self.out.push(
                Diagnostic::new(
                    self.file,
                    b.span,
                    format!("flags bit `{}` is used twice", b.bit),
                    "a bit is one form's tier or one group's presence",
                )
                .with_note(note),
            );
            return None;
        }
        used.insert(b.bit.clone(), b.span);
        Some(FlagBit {
            name: b.bit.clone(),
            index,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn group(
        &mut self,
        i: usize,
        g: &Group,
        flags_field: Option<&str>,
        flags_bits: Option<&Bits>,
        used_bits: &mut BTreeMap<String, Span>,
        field_names: &mut BTreeMap<String, Span>,
        records: &mut BTreeMap<String, Span>,
    ) -> Option<GroupPlan> {
        let before = self.out.len();
        if g.fields.is_empty() {
            self.error(
                g.name_span,
                format!("group `{}` has no field", g.name),
                "a group holds at least one field",
            );
            return None;
        }
        let presence = g
            .presence
            .as_ref()
            .and_then(|b| self.flag_bit(b, flags_field, flags_bits, used_bits));
        let mut fields = Vec::new();
        let mut tick = None;
        let has_quat = g.fields.iter().any(|f| matches!(f.ty, Type::Quat { .. }));
        let nested = g.presence.is_some() || has_quat;
        let mut local: BTreeSet<&str> = BTreeSet::new();
        for (fi, f) in g.fields.iter().enumerate() {
            if !local.insert(&f.name) {
                self.error(
                    f.name_span,
                    format!("field `{}` is declared twice in group `{}`", f.name, g.name),
                    "a second field of this name",
                );
                continue;
            }
            if !nested {
                // Fields of a flat group are fields of the state's record.
                if let Some(first) = field_names.get(&f.name) {
                    let note = format!("`{}` is first declared at byte {}", f.name, first.start);
                    self.out.push(
                        Diagnostic::new(
                            self.file,
                            f.name_span,
                            format!("field `{}` is declared twice in the state's record", f.name),
                            "the fields of every group are fields of one record",
                        )
                        .with_note(note),
                    );
                } else {
                    field_names.insert(f.name.clone(), f.name_span);
                }
            }
            if let Some(c) = f.coded {
                if f.age.is_some() || !g.forms.is_empty() {
                    self.coded_uses.push(c.span);
                    self.error(
                        c.span,
                        format!("`coded ...` on `{}`, which travels in the change otherwise", f.name),
                        "write `coded velocity` on a step form's field, `coded base` on a `quat` of a group of one form",
                    );
                }
            }
            let value = if let Some(age) = &f.age {
                if tick.is_some() {
                    self.error(
                        f.name_span,
                        format!("group `{}` has two ticks", g.name),
                        "a group is measured at one tick",
                    );
                }
                let good = match age.ty {
                    Type::Int(t @ IntType { signed: false, .. })
                        if matches!(t.bits, 8 | 16 | 32) =>
                    {
                        Some(t)
                    }
                    _ => {
                        self.error(
                            age.name_span,
                            format!(
                                "the age `{}` is not an unsigned byte-aligned integer",
                                age.name
                            ),
                            "expected `u8`, `u16` or `u32`",
                        );
                        None
                    }
                };
                let packed = age.packed.clone().unwrap_or_else(|| age.ty.clone());
                if let Some(w) = good {
                    self.packed_code(&packed, (0, w.max()), age.name_span, &age.name);
                }
                let wire = good.unwrap_or(IntType::unsigned(8));
                tick = Some(TickPlan {
                    field: fi,
                    age: age.name.clone(),
                    wire,
                    packed,
                });
                Value::Tick
            } else {
                self.value(&f.ty, f.name_span, &f.name)?
            };
            if matches!(value, Value::Quat { .. }) && g.fields.len() > 1 {
                self.error(
                    f.name_span,
                    format!("group `{}` holds a quaternion beside other fields", g.name),
                    "a quaternion travels whole in a group of its own",
                );
            }
            fields.push(FieldPlan {
                name: f.name.clone(),
                docs: f.docs.doc.clone(),
                value,
            });
        }
        if nested {
            if let Some(first) = field_names.get(&g.name) {
                let note = format!("`{}` is first declared at byte {}", g.name, first.start);
                self.out.push(
                    Diagnostic::new(
                        self.file,
                        g.name_span,
                        format!("`{}` is declared twice in the state's record", g.name),
                        "a nested group is a field of the record, named after the group",
                    )
                    .with_note(note),
                );
            } else {
                field_names.insert(g.name.clone(), g.name_span);
            }
        }
        if nested && tick.is_some() {
            self.error(
                g.name_span,
                format!("group `{}` is nested and measured at a tick", g.name),
                "a tick belongs to a group of the record's own fields (not optional, no quaternion)",
            );
        }
        let record_name = g
            .record
            .as_ref()
            .map_or_else(|| pascal(&g.name), |r| r.name.clone());
        let record_span = g.record.as_ref().map_or(g.name_span, |r| r.span);
        let packed_record = has_quat;
        let mut forms = Vec::new();
        let mut tier = None;
        let mut reach = None;
        match g.forms.len() {
            0 => {
                // One form: the fields as declared.
                self.new_record(records, &record_name, record_span);
                let mut wire = Vec::new();
                for (fi, f) in g.fields.iter().enumerate() {
                    if f.age.is_some() {
                        continue;
                    }
                    let Some(fp) = fields.get(fi) else { continue };
                    let range = wire_range(&f.ty);
                    let packed = f.packed.clone().unwrap_or_else(|| f.ty.clone());
                    if let Some(r) = range {
                        self.packed_code(&packed, r, f.name_span, &f.name);
                    } else if f.packed.is_some() {
                        self.error(
                            f.name_span,
                            format!("field `{}` has a packed code and is not an integer", f.name),
                            "only an integer's code can be chosen: remove `packed ...`",
                        );
                    }
                    let carry = match fp.value {
                        Value::Int { .. } => Carry::Scaled { by: 1 },
                        _ => Carry::Itself,
                    };
                    let coded = self.coded_use(f.coded, false, &f.ty, &f.name);
                    wire.push(WirePlan {
                        name: f.name.clone(),
                        docs: f.docs.doc.clone(),
                        field: fi,
                        carry,
                        ty: f.ty.clone(),
                        packed,
                        range,
                        offset: None,
                        coded,
                    });
                }
                forms.push(FormPlan {
                    role: FormRole::Only,
                    field: g.name.clone(),
                    docs: g.docs.doc.clone(),
                    record: record_name.clone(),
                    packed_record: record_name.clone(),
                    packed: packed_record,
                    wire,
                    bytes: None,
                });
            }
            2 if g.forms[0].kind == FormKind::Full && g.forms[1].kind == FormKind::Step => {
                if nested {
                    self.error(
                        g.forms[0].name_span,
                        format!("group `{}` is nested and has two forms", g.name),
                        "only a group of the record's own fields travels in two forms",
                    );
                }
                if let Some(r) = &g.record {
                    self.error(
                        r.span,
                        format!("group `{}` names a record and has two forms", g.name),
                        "each form names its own record: remove `: Name` from the group",
                    );
                }
                for (k, form) in g.forms.iter().enumerate() {
                    if let Some(t) = &form.tier {
                        tier = self.flag_bit(t, flags_field, flags_bits, used_bits);
                    }
                    if form.kind == FormKind::Step {
                        reach = form.reach;
                    }
                    self.new_record(records, &form.record.name, form.record.span);
                    if let Some(plan) = self.form(g, &fields, form, k) {
                        forms.push(plan);
                    }
                }
            }
            _ => {
                let span = g.forms.first().map_or(g.name_span, |f| f.name_span);
                self.error(
                    span,
                    format!("group `{}` has forms other than one `full` then one `step`", g.name),
                    "a group travels as declared, or in two forms: `full name: Record { ... }` then `step name: Record { ... }`",
                );
            }
        }
        if self.out.len() > before {
            return None;
        }
        let two = forms.len() == 2;
        let full_bit_name = two.then(|| format!("{}_FULL", screaming(&g.name)));
        let age_bit_name = tick.as_ref().map(|_| format!("{}_AGE", screaming(&g.name)));
        Some(GroupPlan {
            name: g.name.clone(),
            docs: g.docs.doc.clone(),
            bit: u8::try_from(i).unwrap_or(u8::MAX),
            bit_name: screaming(&g.name),
            record: record_name,
            nested,
            packed_record,
            presence,
            fields,
            tick,
            tier,
            full_bit_name,
            age_bit_name,
            forms,
            reach,
        })
    }

    fn new_record(&mut self, records: &mut BTreeMap<String, Span>, name: &str, span: Span) {
        if let Some(first) = records.get(name) {
            let note = format!("`{name}` is first named at byte {}", first.start);
            self.out.push(
                Diagnostic::new(
                    self.file,
                    span,
                    format!("record `{name}` is named twice in the state"),
                    "each group's and form's record has a name of its own",
                )
                .with_note(note),
            );
        } else {
            records.insert(name.to_string(), span);
        }
    }

    /// A group field's value from its declared type.
    fn value(&mut self, ty: &Type, span: Span, name: &str) -> Option<Value> {
        Some(match ty {
            // WIRE-29: the record holds a ranged field's integer; its wire refuses the rest.
            Type::Int(t) | Type::Ranged { int: t, .. } => Value::Int {
                signed: t.signed,
                bits: t.bits,
                unit: None,
            },
            Type::Quant { wire, num, den } => match wire.as_ref() {
                Type::Int(t) => Value::Int {
                    signed: t.signed,
                    bits: t.bits,
                    unit: Some((*num, *den)),
                },
                _ => {
                    self.error(
                        span,
                        format!("field `{name}` is quantized onto a {}", crate::fmt::type_text(wire)),
                        "the record holds a quantized field's integer: expected `quant(uN or iN, scale)`",
                    );
                    return None;
                }
            },
            Type::Float { bits, .. } => Value::Float { bits: *bits },
            Type::Bool => Value::Bool,
            Type::Quat { bits, .. } => Value::Quat { bits: *bits },
            Type::Named { name: n, .. } => match self.index.get(n) {
                Some(Decl::Bits(b)) => Value::Bits {
                    name: b.name.clone(),
                    width: b.width,
                },
                _ => {
                    self.error(
                        span,
                        format!("field `{name}` is of type `{n}`, which a group cannot hold"),
                        "a group field is an integer, a `quant(...)`, a float, a bool, a bit set or a `quat(B)`",
                    );
                    return None;
                }
            },
            other => {
                self.error(
                    span,
                    format!(
                        "field `{name}` is of type `{}`, which a group cannot hold",
                        crate::fmt::type_text(other)
                    ),
                    "a group field is an integer, a `quant(...)`, a float, a bool, a bit set or a `quat(B)`",
                );
                return None;
            }
        })
    }

    /// A packed code `code` must hold every wire value `range` of the field.
    fn packed_code(&mut self, code: &Type, range: (i128, i128), span: Span, name: &str) {
        let Some((lo, hi)) = code_range(code) else {
            self.error(
                span,
                format!("the packed code of `{name}` is not an integer code"),
                "expected `uN`, `iN`, `bucket(...)` or `zbucket(...)`",
            );
            return;
        };
        if lo > range.0 || hi < range.1 {
            self.error(
                span,
                format!(
                    "the packed code of `{name}` holds {lo} to {hi}, and the field's wire reaches {} to {}",
                    range.0, range.1
                ),
                "a packed code holds every value of the byte-aligned frame's field",
            );
        }
    }

    fn form(&mut self, g: &Group, fields: &[FieldPlan], form: &Form, k: usize) -> Option<FormPlan> {
        let role = if k == 0 {
            FormRole::Full
        } else {
            FormRole::Step
        };
        let mut wire = Vec::new();
        let mut carried: BTreeSet<usize> = BTreeSet::new();
        let mut names: BTreeSet<&str> = BTreeSet::new();
        for w in &form.fields {
            if !names.insert(&w.name) {
                self.error(
                    w.name_span,
                    format!(
                        "field `{}` is declared twice in form `{}`",
                        w.name, form.name
                    ),
                    "a second field of this name",
                );
                continue;
            }
            let target = w.step.as_ref().map_or(w.name.as_str(), |s| s.name.as_str());
            let target_span = w.step.as_ref().map_or(w.name_span, |s| s.span);
            let Some(fi) = g.fields.iter().position(|f| f.name == target) else {
                self.error(
                    target_span,
                    format!("`{target}` is no field of group `{}`", g.name),
                    if w.step.is_some() {
                        "expected the group field this one steps"
                    } else {
                        "a form's field is named after the group field it carries, or written `name: T step field`"
                    },
                );
                continue;
            };
            let Some(fp) = fields.get(fi) else { continue };
            if matches!(fp.value, Value::Tick) {
                self.error(
                    target_span,
                    format!("`{target}` is the group's tick: its age travels in the change"),
                    "remove it from the form",
                );
                continue;
            }
            if !carried.insert(fi) {
                self.error(
                    w.name_span,
                    format!("form `{}` carries `{target}` twice", form.name),
                    "each field travels once in a form",
                );
                continue;
            }
            let carry = if w.step.is_some() {
                if role == FormRole::Full {
                    self.error(
                        w.name_span,
                        format!("the full form `{}` steps `{target}`", form.name),
                        "the full form carries every field absolute",
                    );
                    continue;
                }
                match (&fp.value, &w.ty) {
                    (Value::Int { .. }, Type::Int(t)) if t.signed => Carry::Step,
                    _ => {
                        self.error(
                            w.name_span,
                            format!("the step of `{target}` is not a signed integer of an integer field"),
                            "a step is `iN`: the field less the base's",
                        );
                        continue;
                    }
                }
            } else {
                match self.carry(fp, &w.ty, w.name_span, &w.name) {
                    Some(c) => c,
                    None => continue,
                }
            };
            let range = match carry {
                Carry::Float { .. } | Carry::Itself => None,
                _ => wire_range(&w.ty),
            };
            let packed = w.packed.clone().unwrap_or_else(|| w.ty.clone());
            match range {
                Some(r) => self.packed_code(&packed, r, w.name_span, &w.name),
                None if w.packed.is_some() => self.error(
                    w.name_span,
                    format!("field `{}` has a packed code and is not an integer", w.name),
                    "only an integer's code can be chosen: remove `packed ...`",
                ),
                None => {}
            }
            let coded = self.coded_use(w.coded, carry == Carry::Step, &w.ty, &w.name);
            wire.push(WirePlan {
                name: w.name.clone(),
                docs: w.docs.doc.clone(),
                field: fi,
                carry,
                ty: w.ty.clone(),
                packed,
                range,
                offset: None,
                coded,
            });
        }
        for (fi, f) in fields.iter().enumerate() {
            if !carried.contains(&fi) && !matches!(f.value, Value::Tick) {
                self.error(
                    form.name_span,
                    format!("form `{}` does not carry `{}`", form.name, f.name),
                    "every field of the group travels in every form",
                );
            }
        }
        if role == FormRole::Step && !wire.iter().any(|w| w.carry == Carry::Step) {
            self.error(
                form.name_span,
                format!("the step form `{}` steps nothing", form.name),
                "write `name: iN step field` for at least one field",
            );
        }
        if let Some(reach) = form.reach {
            let fits = wire
                .iter()
                .filter(|w| w.carry == Carry::Step)
                .filter_map(|w| fields.get(w.field).and_then(|f| f.value.range()))
                .all(|(_, hi)| i128::from(reach) <= hi);
            if reach == 0 || !fits {
                self.error(
                    form.name_span,
                    format!(
                        "the reach {reach} of `{}` is not a magnitude its fields can take",
                        form.name
                    ),
                    "expected a reach from 1 to the stepped fields' largest value",
                );
            }
        }
        Some(FormPlan {
            role,
            field: form.name.clone(),
            docs: form.docs.doc.clone(),
            record: form.record.name.clone(),
            packed_record: String::new(),
            packed: false,
            wire,
            bytes: None,
        })
    }

    /// How wire type `ty` carries field `f` (not a step).
    fn carry(&mut self, f: &FieldPlan, ty: &Type, span: Span, name: &str) -> Option<Carry> {
        let bad = |r: &mut Self, why: &str| {
            r.error(
                span,
                format!(
                    "`{name}: {}` cannot carry field `{}`",
                    crate::fmt::type_text(ty),
                    f.name
                ),
                why.to_string(),
            );
            None
        };
        match (&f.value, ty) {
            (Value::Int { unit, bits, .. }, Type::Float { bits: fb, .. }) => {
                let Some((num, den)) = *unit else {
                    return bad(self, "a float carries a quantized field's value: declare the field `quant(T, scale)`");
                };
                if !num.is_power_of_two() || !den.is_power_of_two() {
                    return bad(self, "a float carries a field's value exactly only when its unit is a power of two");
                }
                let mantissa: u64 = if *fb == 32 { 1 << 24 } else { 1 << 53 };
                let limit = mantissa.min(1u64 << (bits - 1).min(63));
                Some(Carry::Float {
                    bits: *fb,
                    num,
                    den,
                    limit,
                })
            }
            (Value::Int { unit, .. }, Type::Quant { wire, num, den }) => {
                if !matches!(wire.as_ref(), Type::Int(_)) {
                    return bad(self, "expected `quant(uN or iN, scale)`");
                }
                let Some((un, ud)) = *unit else {
                    return bad(self, "a `quant(...)` carries a quantized field: declare the field `quant(T, scale)`");
                };
                // wire unit / field unit = (num/den) / (un/ud) = num*ud / (den*un), a whole number.
                let a = u128::from(*num) * u128::from(ud);
                let b = u128::from(*den) * u128::from(un);
                if b == 0 || a % b != 0 {
                    return bad(
                        self,
                        "the wire's unit must be a whole multiple of the field's",
                    );
                }
                match u64::try_from(a / b) {
                    Ok(by) if by >= 1 => Some(Carry::Scaled { by }),
                    _ => bad(
                        self,
                        "the wire's unit must be a whole multiple of the field's",
                    ),
                }
            }
            (Value::Int { .. }, Type::Int(_) | Type::Ranged { .. }) => {
                Some(Carry::Scaled { by: 1 })
            }
            (Value::Float { bits }, Type::Float { bits: fb, .. }) if bits == fb => {
                Some(Carry::Itself)
            }
            (Value::Bool, Type::Bool) => Some(Carry::Itself),
            (Value::Bits { name: a, .. }, Type::Named { name: b, .. }) if a == b => {
                Some(Carry::Itself)
            }
            (Value::Quat { bits }, Type::Quat { bits: b, .. }) if bits == b => Some(Carry::Itself),
            _ => bad(
                self,
                "a wire field carries its field as the same kind of value",
            ),
        }
    }

    /// The record's fields in canonical order.
    fn record_order(
        &mut self,
        record: &crate::model::StateRecord,
        groups: &[GroupPlan],
        flags: Option<&crate::model::StateFlagsField>,
    ) -> Option<Vec<RecordField>> {
        // Every field the record holds, by name, in declaration order.
        let mut all: Vec<(String, RecordField)> = Vec::new();
        if let (Some(f), Some(bits)) = (flags, flags.and_then(|f| self.index.bits(&f.bits.name))) {
            all.push((
                f.name.name.clone(),
                RecordField {
                    name: f.name.name.clone(),
                    holds: Holds::Flags,
                    ty: Type::Named {
                        name: bits.name.clone(),
                        span: f.bits.span,
                    },
                    bytes: u32::from(bits.width / 8),
                    present: None,
                },
            ));
        }
        for (gi, g) in groups.iter().enumerate() {
            if g.nested {
                let bytes = g
                    .fields
                    .iter()
                    .map(|f| match f.value {
                        Value::Quat { bits } => 2 + 3 * u32::from(bits),
                        _ => value_bytes(&f.value) * 8,
                    })
                    .sum::<u32>()
                    .div_ceil(8);
                all.push((
                    g.name.clone(),
                    RecordField {
                        name: g.name.clone(),
                        holds: Holds::Group(gi),
                        ty: Type::Named {
                            name: g.record.clone(),
                            span: Span::default(),
                        },
                        bytes,
                        present: g.presence.clone(),
                    },
                ));
                continue;
            }
            for (fi, f) in g.fields.iter().enumerate() {
                all.push((
                    f.name.clone(),
                    RecordField {
                        name: f.name.clone(),
                        holds: Holds::Field {
                            group: gi,
                            field: fi,
                        },
                        ty: record_type(&f.value),
                        bytes: value_bytes(&f.value),
                        present: None,
                    },
                ));
            }
        }
        if record.order.is_empty() {
            return Some(all.into_iter().map(|(_, f)| f).collect());
        }
        let mut out = Vec::new();
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for n in &record.order {
            if !seen.insert(&n.name) {
                self.error(
                    n.span,
                    format!("`{}` is listed twice in the record's order", n.name),
                    "each field once",
                );
                continue;
            }
            match all.iter().find(|(name, _)| name == &n.name) {
                Some((_, f)) => out.push(f.clone()),
                None => self.error(
                    n.span,
                    format!("`{}` is no field of the state's record", n.name),
                    "expected a group field, the flags field or a nested group's name",
                ),
            }
        }
        for (name, _) in &all {
            if !seen.contains(name.as_str()) {
                self.error(
                    record.name.span,
                    format!("the record's order leaves out `{name}`"),
                    "the order lists every field of the record once",
                );
            }
        }
        // A field present under a flags bit comes after the flags.
        let flags_at = out.iter().position(|f| f.holds == Holds::Flags);
        for (i, f) in out.iter().enumerate() {
            if f.present.is_some() && flags_at.is_none_or(|at| i < at) {
                let span = record
                    .order
                    .iter()
                    .find(|n| n.name == f.name)
                    .map_or(record.name.span, |n| n.span);
                self.error(
                    span,
                    format!("`{}` comes before the flags that say it is there", f.name),
                    "an optional group comes after the flags field",
                );
            }
        }
        Some(out)
    }

    fn profile(&mut self, p: &Profile, groups: &[GroupPlan]) -> Option<ProfilePlan> {
        let before = self.out.len();
        let Some(change) = &p.change else {
            self.error(
                p.name.span,
                format!("frame `{}` names no change record", p.name.name),
                "expected a member `change Name,`",
            );
            return None;
        };
        let Some(mask) = &p.mask else {
            self.error(
                p.name.span,
                format!("frame `{}` names no change mask", p.name.name),
                "expected a member `mask Name: uN,`",
            );
            return None;
        };
        let flag_bits: Vec<(usize, bool)> = groups
            .iter()
            .enumerate()
            .flat_map(|(i, g)| {
                let mut v = Vec::new();
                if g.full_bit_name.is_some() {
                    v.push((i, true));
                }
                if g.age_bit_name.is_some() {
                    v.push((i, false));
                }
                v
            })
            .collect();
        let named = groups.len() + flag_bits.len();
        let width = match (p.packed, mask.width) {
            (_, Some(w)) => w,
            (true, None) => u8::try_from(named).unwrap_or(u8::MAX),
            (false, None) => {
                self.error(
                    mask.name.span,
                    format!(
                        "mask `{}` of a byte-aligned frame has no width",
                        mask.name.name
                    ),
                    "expected `mask Name: u8` (or u16, u32, u64)",
                );
                return None;
            }
        };
        if !p.packed && !matches!(width, 8 | 16 | 32 | 64) {
            self.error(
                mask.name.span,
                format!(
                    "mask `{}` of a byte-aligned frame is {width} bits wide",
                    mask.name.name
                ),
                "expected u8, u16, u32 or u64",
            );
        }
        if named > usize::from(width) || width > 64 || width == 0 {
            self.error(
                mask.name.span,
                format!(
                    "mask `{}` has {width} bits for {} groups and {} form and age bits",
                    mask.name.name,
                    groups.len(),
                    flag_bits.len()
                ),
                "each group takes a bit from 0, each full form and tick one more",
            );
            return None;
        }
        // Byte-aligned: groups from bit 0, the form and age bits at the top (kind 6: POSE_FULL
        // 14, POSE_AGE 15). Packed: every bit right after the groups (kind 12: 4 and 5).
        let first_flag = if p.packed {
            groups.len()
        } else {
            usize::from(width) - flag_bits.len()
        };
        let mut full_bits = vec![None; groups.len()];
        let mut age_bits = vec![None; groups.len()];
        for (k, (g, full)) in flag_bits.iter().enumerate() {
            let bit = u8::try_from(first_flag + k).unwrap_or(u8::MAX);
            if *full {
                full_bits[*g] = Some(bit);
            } else {
                age_bits[*g] = Some(bit);
            }
        }
        let eid = if p.packed {
            match &p.eid {
                Some(e) => {
                    match code_range(&e.ty) {
                        Some((lo, hi)) if lo <= 0 && hi >= i128::from(u16::MAX) && !matches!(e.ty, Type::Bucket { signed: true, .. }) && !matches!(e.ty, Type::Int(IntType { signed: true, .. })) => {}
                        _ => self.error(
                            e.span,
                            "the packed id's code does not hold every u16 gap",
                            "expected an unsigned code of 0 to at least 65535, such as `bucket(2, 3, 4, 5, 16)` or `u16`",
                        ),
                    }
                    e.ty.clone()
                }
                None => {
                    self.error(
                        p.name.span,
                        format!("packed frame `{}` does not say how ids travel", p.name.name),
                        "expected a member `eid: bucket(...),` (the gap from the previous change's id)",
                    );
                    return None;
                }
            }
        } else {
            if let Some(e) = &p.eid {
                self.error(
                    e.span,
                    "a byte-aligned frame's ids are u16",
                    "`eid:` belongs to a packed frame: remove it",
                );
            }
            Type::Int(IntType::unsigned(16))
        };
        let body = if p.packed {
            match &p.body {
                Some(b) => Some(b.name.name.clone()),
                None => {
                    self.error(
                        p.name.span,
                        format!("packed frame `{}` names no body record", p.name.name),
                        "expected a member `body Name,` (the packed record holding the changes)",
                    );
                    return None;
                }
            }
        } else {
            if let Some(b) = &p.body {
                self.error(
                    b.name.span,
                    "a byte-aligned frame has no packed body",
                    "`body` belongs to a packed frame: remove it",
                );
            }
            None
        };
        if !p.packed {
            if let Some(x) = &p.prefix {
                self.error(
                    x.name.span,
                    "a byte-aligned frame's records are the groups' own",
                    "`prefix` belongs to a packed frame: remove it",
                );
            }
        }
        if self.out.len() > before {
            return None;
        }
        Some(ProfilePlan {
            packed: p.packed,
            frame: p.name.name.clone(),
            frame_name: snake(&p.name.name),
            kind: p.kind,
            schema: if p.packed {
                format!("Packed{}", self.state.name)
            } else {
                self.state.name.clone()
            },
            change: change.name.name.clone(),
            mask: mask.name.name.clone(),
            mask_width: width,
            full_bits,
            age_bits,
            body,
            eid,
            prefix: p
                .prefix
                .as_ref()
                .map_or_else(|| "Packed".to_string(), |x| x.name.name.clone()),
        })
    }
}

/// The offsets of a form's fields in its byte-aligned record (bits, when the record is packed)
/// and the record's size, while every field has a fixed size.
fn layout(f: &mut FormPlan, fields: &[FieldPlan]) {
    let mut at = Some(0u32);
    for w in &mut f.wire {
        w.offset = at.map(|a| if f.packed { a } else { a / 8 });
        let bits = match (fields.get(w.field).map(|x| &x.value), &w.ty) {
            (Some(Value::Bits { width, .. }), _) => Some(u32::from(*width)),
            // WIRE-29: packed, the bits its range needs.
            (_, Type::Ranged { min, max, .. }) if f.packed => {
                Some(u32::from(crate::model::range_bits(*min, *max)))
            }
            _ => fixed_bits(&w.ty),
        };
        at = at.zip(bits).map(|(a, b)| a + b);
    }
    f.bytes = at.map(|bits| bits.div_ceil(8));
}

/// The bits a type takes when every value takes the same (a byte-aligned bool's 8).
fn fixed_bits(ty: &Type) -> Option<u32> {
    match ty {
        Type::Int(t) | Type::Ranged { int: t, .. } => Some(u32::from(t.bits)),
        Type::Float { bits, .. } => Some(u32::from(*bits)),
        Type::Bool => Some(8),
        Type::Quant { wire, .. } => fixed_bits(wire),
        Type::Quat { bits, .. } => Some(2 + 3 * u32::from(*bits)),
        _ => None,
    }
}

/// The type a record field has in the record: a quantized field's integer, a tick's u32.
fn record_type(v: &Value) -> Type {
    match v {
        Value::Int { signed, bits, .. } => Type::Int(IntType {
            signed: *signed,
            bits: *bits,
            endian: None,
        }),
        Value::Tick => Type::Int(IntType::unsigned(32)),
        Value::Float { bits } => Type::Float {
            bits: *bits,
            endian: None,
        },
        Value::Bool => Type::Bool,
        Value::Bits { name, .. } => Type::Named {
            name: name.clone(),
            span: Span::default(),
        },
        Value::Quat { bits } => Type::Quat {
            bits: *bits,
            span: Span::default(),
        },
    }
}

/// A flat value's size in the record's bytes.
fn value_bytes(v: &Value) -> u32 {
    match v {
        Value::Int { bits, .. } => u32::from(*bits).div_ceil(8),
        Value::Tick => 4,
        Value::Float { bits } => u32::from(*bits) / 8,
        Value::Bool => 1,
        Value::Bits { width, .. } => u32::from(*width).div_ceil(8),
        Value::Quat { bits } => (2 + 3 * u32::from(*bits)).div_ceil(8),
    }
}

/// The range of a wire integer type (a `quant`'s integer), `None` for anything else.
fn wire_range(ty: &Type) -> Option<(i128, i128)> {
    match ty {
        Type::Int(t) => Some((t.min(), t.max())),
        Type::Ranged { min, max, .. } => Some((i128::from(*min), i128::from(*max))),
        Type::Quant { wire, .. } => wire_range(wire),
        _ => None,
    }
}

/// The values a packed code holds (a `quant`'s integer's), `None` for a code that is no
/// integer.
fn code_range(ty: &Type) -> Option<(i128, i128)> {
    match ty {
        Type::Int(t) => Some((t.min(), t.max())),
        Type::Ranged { min, max, .. } => Some((i128::from(*min), i128::from(*max))),
        Type::Quant { wire, .. } => code_range(wire),
        Type::Bucket { signed, widths, .. } => {
            let top = *bucket_bases(widths)?.last()?;
            let max_code = i128::try_from(top).ok()? - 1;
            Some(if *signed {
                (-((max_code + 1) / 2), max_code / 2)
            } else {
                (0, max_code)
            })
        }
        _ => None,
    }
}

/// The staged change of `groups`: the id, the mask, one field per group field (wide enough for
/// every form's wire value) and one per age.
fn staged(groups: &[GroupPlan], profiles: &[ProfilePlan], change: &str) -> StagedPlan {
    let mask_width = profiles
        .iter()
        .find(|p| !p.packed)
        .or(profiles.first())
        .map_or(16, |p| p.mask_width)
        .next_power_of_two()
        .max(8);
    let mut fields = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        for (fi, f) in g.fields.iter().enumerate() {
            if let Some(t) = g.tick.as_ref().filter(|t| t.field == fi) {
                fields.push(StagedField {
                    name: t.age.clone(),
                    holds: StagedHolds::Age(gi),
                    signed: false,
                    bits: t.wire.bits,
                });
                continue;
            }
            let (signed, bits) = staged_int(g, fi, f);
            fields.push(StagedField {
                // A nested group's fields are not the record's: named after the group too.
                name: if g.nested {
                    format!("{}_{}", g.name, f.name)
                } else {
                    f.name.clone()
                },
                holds: StagedHolds::Field {
                    group: gi,
                    field: fi,
                },
                signed,
                bits,
            });
        }
    }
    StagedPlan {
        name: format!("Staged{change}"),
        mask_width,
        fields,
    }
}

/// The integer a staged field is kept in: wide enough for every form's wire value of field
/// `fi` (a float's bits, a quaternion's record bits), signed when any is.
fn staged_int(g: &GroupPlan, fi: usize, f: &FieldPlan) -> (bool, u8) {
    let mut signed = false;
    let mut bits = 8u8;
    for w in g
        .forms
        .iter()
        .flat_map(|x| &x.wire)
        .filter(|w| w.field == fi)
    {
        let (s, b) = match (&w.carry, &w.ty) {
            (Carry::Float { bits, .. }, _) => (true, *bits),
            (_, t) => match (wire_range(t), &f.value) {
                (Some((lo, hi)), _) => {
                    let b = [8u8, 16, 32, 64]
                        .into_iter()
                        .find(|b| {
                            let t = IntType {
                                signed: lo < 0,
                                bits: *b,
                                endian: None,
                            };
                            t.min() <= lo && hi <= t.max()
                        })
                        .unwrap_or(64);
                    (lo < 0, b)
                }
                (None, Value::Quat { bits }) => {
                    (false, ((2 + 3 * *bits).div_ceil(8) * 8).next_power_of_two())
                }
                (None, Value::Float { bits }) => (true, *bits),
                (None, Value::Bits { width, .. }) => (false, width.next_power_of_two().max(8)),
                (None, _) => (false, 8),
            },
        };
        signed |= s;
        bits = bits.max(b);
    }
    (signed, bits)
}

/// The record's fields in u64 words: in canonical order, each moved to the next word when it
/// would straddle one, and the length byte last.
fn slot(record: &str, fields: &[RecordField]) -> SlotPlan {
    let mut at = 0u32;
    let mut out = Vec::new();
    for f in fields {
        let bytes = f.bytes.clamp(1, 8);
        if at % 8 + bytes > 8 {
            at = at.div_ceil(8) * 8;
        }
        out.push(SlotField { at, bytes });
        at += bytes;
    }
    let words = (at + 1).div_ceil(8);
    SlotPlan {
        name: format!("{record}Slot"),
        words,
        fields: out,
        holds_at: words * 8 - 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_change_case() {
        assert_eq!(pascal("pose_full"), "PoseFull");
        assert_eq!(screaming("pose"), "POSE");
        assert_eq!(snake("AckedPacked"), "acked_packed");
        assert_eq!(snake("Acked"), "acked");
    }

    #[test]
    fn codes_hold_their_ranges() {
        let b = |signed, w: &[u8]| Type::Bucket {
            signed,
            widths: w.to_vec(),
            span: Span::default(),
        };
        assert_eq!(code_range(&b(false, &[0, 8])), Some((0, 256)));
        // 1 + 128 + 256 + 512 + 65536 codes: -33216 to 33216.
        assert_eq!(
            code_range(&b(true, &[0, 7, 8, 9, 16])),
            Some((-33216, 33216))
        );
        assert_eq!(code_range(&Type::Int(IntType::unsigned(7))), Some((0, 127)));
        assert_eq!(code_range(&Type::Bool), None);
    }
}
