//! The Rust binding of each machine schema (`schema Name for datagram|baseline|delta`): the
//! schema's marker type and its `impl DatagramSchema`, `BaselineSchema` or `DeltaSchema`, with
//! the frame traits of the machines implemented on the frames that play the roles.
//!
//! Everything printed here is read off the [`MachinePlan`] (`crate::machines`), which already
//! checked that each role's frame holds the fields the machines read and make, at their widths:
//! this module only spells the adapters, field by field. The rules the machines keep (ids
//! ascending, spawn tags, confirmed bits, the digest) stay in `ackwire-codec`.

use super::{ident, uint_type, Gen};
use crate::machines::{BaselinePlan, DatagramPlan, DeltaPlan, Framed, Gap, MachinePlan};
use crate::state::StatePlan;

impl Gen<'_, '_> {
    /// Every schema's binding, against the machines of the crate at `codec` (`crate` inside
    /// `ackwire-codec`, `::ackwire_codec` elsewhere).
    pub(super) fn machine_schemas(&mut self, plans: &[MachinePlan], codec: &str) {
        for plan in plans {
            let mut m = Machines {
                g: self,
                c: codec.to_string(),
            };
            match plan {
                MachinePlan::Datagram(p) => m.datagram(p),
                MachinePlan::Baseline(p) => m.baseline(p),
                MachinePlan::Delta(p) => m.delta(p),
            }
        }
    }
}

impl Gen<'_, '_> {
    /// Each state's groups as typed datagram v2 components (DG-6): the
    /// component's type is the group's index, its data the group's full (or only) form as the
    /// byte-aligned frame writes it.
    pub(super) fn state_components(&mut self, plans: &[StatePlan], codec: &str) {
        for plan in plans.iter().filter(|p| p.byte_profile().is_some()) {
            Machines {
                g: self,
                c: codec.to_string(),
            }
            .components(plan);
        }
    }
}

struct Machines<'g, 'a, 's> {
    g: &'g mut Gen<'a, 's>,
    /// The machines' crate.
    c: String,
}

impl Machines<'_, '_, '_> {
    fn line(&mut self, s: impl AsRef<str>) {
        self.g.code.line(s);
    }
    fn open(&mut self, s: impl AsRef<str>) {
        self.g.code.open(s);
    }
    fn close(&mut self, s: impl AsRef<str>) {
        self.g.code.close(s);
    }
    fn blank(&mut self) {
        self.g.code.blank();
    }
    fn doc(&mut self, lines: &[String], fallback: &str) {
        if lines.is_empty() {
            self.line(format!("/// {fallback}"));
        }
        for l in lines {
            if l.is_empty() {
                self.line("///");
            } else {
                self.line(format!("/// {l}"));
            }
        }
    }

    /// The marker type a schema is.
    fn marker(&mut self, name: &str, machine: &str, doc: &[String], fallback: &str) {
        self.blank();
        self.line(format!(
            "// ---- schema {name}: the {machine} machines' binding"
        ));
        self.blank();
        self.doc(doc, fallback);
        self.line("#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]");
        self.line(format!("pub struct {name};"));
    }

    /// A getter returning a field by value.
    fn getter(&mut self, name: &str, ty: &str, body: &str) {
        self.open(format!("fn {name}(&self) -> {ty} {{"));
        self.line(body);
        self.close("}");
    }

    // ---- a state's groups as components ----

    fn components(&mut self, p: &StatePlan) {
        let name = format!("{}Component", p.name);
        let rt = self.g.rt.clone();
        let change = format!("{}::datagram::ComponentChange", self.c);
        let frame = p
            .byte_profile()
            .map_or("", |f| f.frame.as_str())
            .to_string();
        // The full form of a group of two, its only form otherwise: what a whole entity sends.
        let groups: Vec<_> = p
            .groups
            .iter()
            .filter_map(|g| {
                let form = g.whole_form()?;
                Some((variant(&g.name), g, form))
            })
            .collect();
        self.blank();
        self.line(format!(
            "// ---- state {}: its groups as datagram v2 components",
            p.name
        ));
        self.blank();
        self.line(format!(
            "/// One group of an entity of state `{}` as a component (DG-6): its type is the group's index (its"
        , p.name));
        self.line(format!(
            "/// change-mask bit), its data the group's full form as `{frame}` writes it."
        ));
        self.line("#[derive(Debug, Clone, PartialEq)]");
        self.open(format!("pub enum {name} {{"));
        for (v, g, form) in &groups {
            let fallback = format!("Type {}.", g.bit);
            self.doc(&g.docs, &fallback);
            self.line(format!("{v}({}),", form.record));
        }
        self.close("}");

        self.blank();
        self.open(format!("impl {name} {{"));
        self.line("/// The component's type: its group's index.");
        self.open("pub fn component_type(&self) -> u8 {");
        self.open("match self {");
        for (v, g, _) in &groups {
            self.line(format!("Self::{v}(_) => {},", g.bit));
        }
        self.close("}");
        self.close("}");

        self.blank();
        self.line("/// The component change that carries this value.");
        self.open(format!(
            "pub fn to_component<C: {change}>(&self) -> Result<C, {rt}::EncodeError> {{"
        ));
        self.line("let mut data = Vec::new();");
        self.open("match self {");
        for (v, _, form) in &groups {
            if form.packed {
                self.open(format!("Self::{v}(v) => {{"));
                self.line(format!("let mut w = {rt}::BitWriter::new();"));
                self.line("v.write_bits(&mut w)?;");
                self.line("w.finish(&mut data);");
                self.close("}");
            } else {
                self.line(format!("Self::{v}(v) => v.write(&mut data)?,"));
            }
        }
        self.close("}");
        self.line("Ok(C::new(self.component_type(), Some(data)))");
        self.close("}");

        self.blank();
        self.line("/// The value a component carries, or `None` for a removal and for a type the state does");
        self.line("/// not declare (DG-6: a reader skips a type it does not know). Bytes that do not decode");
        self.line("/// to exactly one value are an error at their offset in the component, under the group's");
        self.line("/// name.");
        self.open(format!(
            "pub fn from_component<C: {change}>(component: &C) -> Result<Option<Self>, DecodeError> {{"
        ));
        self.open("let Some(data) = component.data() else {");
        self.line("return Ok(None);");
        self.close("};");
        self.open("let value = match component.component_type() {");
        // Each variant reads under its own group's name and bit (a group without a full form is
        // left out above, so `p.groups` is not in step with `groups`).
        for (v, g, form) in &groups {
            let (field, bit, record, packed) = (&g.name, g.bit, &form.record, form.packed);
            if packed {
                self.open(format!("{bit} => {{"));
                self.line(format!("let mut b = {rt}::BitReader::new(data, 0);"));
                self.line(format!(
                    "let value = {record}::read_bits(&mut b).map_err(|e| e.field(\"{field}\"))?;"
                ));
                self.line(format!(
                    "let used = b.finish().map_err(|e| e.field(\"{field}\"))?;"
                ));
                self.open("if used != data.len() {");
                self.line(format!(
                    "return Err(DecodeError::new({rt}::ErrorKind::TrailingBytes, used).field(\"{field}\"));"
                ));
                self.close("}");
                self.line(format!("Self::{v}(value)"));
                self.close("}");
            } else {
                self.open(format!("{bit} => {{"));
                self.line("let mut r = Reader::new(data);");
                self.line(format!(
                    "let value = {record}::read(&mut r).map_err(|e| e.field(\"{field}\"))?;"
                ));
                self.line(format!("r.finish().map_err(|e| e.field(\"{field}\"))?;"));
                self.line(format!("Self::{v}(value)"));
                self.close("}");
            }
        }
        self.line("_ => return Ok(None),");
        self.close("};");
        self.line("Ok(Some(value))");
        self.close("}");
        self.close("}");
    }

    // ---- datagram v2 ----

    fn datagram(&mut self, p: &DatagramPlan) {
        let d = format!("{}::datagram", self.c);
        let name = &p.name;
        self.marker(
            name,
            "datagram v2",
            &p.doc,
            "The datagram v2 machines' frames of this protocol.",
        );
        let (component, update) = (&p.component, &p.update);
        self.blank();
        self.open(format!("impl {d}::DatagramSchema for {name} {{"));
        for (assoc, ty) in [
            ("Component", component),
            ("Update", update),
            ("Datagram", &p.datagram.name),
            ("Spawn", &p.spawn.name),
            ("Despawn", &p.despawn),
            ("FullEntity", &p.entity),
            ("FullFrame", &p.full.name),
            ("Ack", &p.ack),
        ] {
            self.line(format!("type {assoc} = {ty};"));
        }
        self.line(format!(
            "/// `max_offset({}.updates)`: the header at its longest (DG-7).",
            p.datagram.name
        ));
        self.line(format!(
            "const MAX_HEADER_LEN: usize = {};",
            p.max_header_len
        ));
        self.close("}");

        // DG-6: a component's type, and its bytes or its removal.
        self.blank();
        self.open(format!("impl {d}::ComponentChange for {component} {{"));
        self.open("fn new(component_type: u8, data: Option<Vec<u8>>) -> Self {");
        self.line(format!("{component} {{ r#type: component_type, data }}"));
        self.close("}");
        self.getter("component_type", "u8", "self.r#type");
        self.getter("data", "Option<&[u8]>", "self.data.as_deref()");
        self.close("}");

        let (mask_field, mask) = (&p.mask.0, &p.mask.1);
        self.blank();
        self.open(format!("impl {d}::UpdateFrame for {update} {{"));
        self.line(format!("type Component = {component};"));
        self.open(format!(
            "fn new(id: u64, spawn_tag: u16, axes: [Option<i64>; 3], components: Option<Vec<{component}>>) -> Self {{"
        ));
        self.line("// DG-4: the mask says which axes follow, and whether components do.");
        self.line(format!("let mut {mask_field} = {mask}::empty();"));
        for (i, bit) in p.axis_bits.iter().enumerate() {
            self.line(format!(
                "{mask_field}.set({mask}::{bit}, axes[{i}].is_some());"
            ));
        }
        self.line(format!(
            "{mask_field}.set({mask}::{}, components.is_some());",
            p.components_bit
        ));
        self.line("let [x, y, z] = axes;");
        self.line(format!(
            "{update} {{ id, spawn_tag, {mask_field}, x, y, z, components }}"
        ));
        self.close("}");
        self.getter("id", "u64", "self.id");
        self.getter("spawn_tag", "u16", "self.spawn_tag");
        self.getter("axes", "[Option<i64>; 3]", "[self.x, self.y, self.z]");
        self.getter(
            "components",
            &format!("Option<&[{component}]>"),
            "self.components.as_deref()",
        );
        self.open("fn encoded_len_after(&self, prev: &mut Option<u64>) -> usize {");
        self.line(format!("{update}::encoded_len_after(self, prev)"));
        self.close("}");
        self.open(format!(
            "fn check(&self) -> Result<(), {}::EncodeError> {{",
            self.g.rt
        ));
        self.line("self.write(&mut Vec::new())");
        self.close("}");
        self.close("}");

        let dg = &p.datagram;
        self.blank();
        self.open(format!("impl {d}::DatagramFrame for {} {{", dg.name));
        self.line(format!("type Update = {update};"));
        self.open(format!(
            "fn new(header: {d}::DatagramHeader, updates: Vec<{update}>) -> Self {{"
        ));
        self.line(format!("{} {{", dg.name));
        for f in ["frame", "tick", "input_ack", "stream_tick"] {
            self.line(format!("    {f}: header.{f},"));
        }
        if dg.precision {
            self.line("    precision: header.precision,");
        }
        self.line("    parts: header.parts,");
        self.line("    updates,");
        self.line("}");
        self.close("}");
        for f in ["frame", "tick", "input_ack", "stream_tick"] {
            self.getter(f, "u64", &format!("self.{f}"));
        }
        self.getter("parts", "u32", "self.parts");
        self.getter("updates", &format!("&[{update}]"), "&self.updates");
        self.close("}");

        let sp = &p.spawn;
        self.blank();
        self.open(format!("impl {d}::SpawnFrame for {} {{", sp.name));
        self.line(format!("type Component = {component};"));
        let precision = if sp.precision { "precision" } else { "_" };
        self.open(format!(
            "fn new(tick: u64, id: u64, {precision}: f32, [x, y, z]: [i64; 3], components: Vec<{component}>) -> Self {{"
        ));
        let with = if sp.precision { "precision, " } else { "" };
        self.line(format!(
            "{} {{ tick, id, {with}x, y, z, components }}",
            sp.name
        ));
        self.close("}");
        self.getter("tick", "u64", "self.tick");
        self.getter("id", "u64", "self.id");
        self.positioned(component);
        self.close("}");

        self.blank();
        self.open(format!("impl {d}::DespawnFrame for {} {{", p.despawn));
        self.open("fn new(tick: u64, id: u64) -> Self {");
        self.line(format!("{} {{ tick, id }}", p.despawn));
        self.close("}");
        self.getter("tick", "u64", "self.tick");
        self.getter("id", "u64", "self.id");
        self.close("}");

        self.blank();
        self.open(format!("impl {d}::FullEntityFrame for {} {{", p.entity));
        self.line(format!("type Component = {component};"));
        self.open(format!(
            "fn new(id: u64, [x, y, z]: [i64; 3], components: Vec<{component}>) -> Self {{"
        ));
        self.line(format!("{} {{ id, x, y, z, components }}", p.entity));
        self.close("}");
        self.getter("id", "u64", "self.id");
        self.positioned(component);
        self.close("}");

        self.full_frame(&d, &p.full, &p.entity);

        self.blank();
        self.open(format!("impl {d}::DatagramAckFrame for {} {{", p.ack));
        self.open("fn new(frame: u64, stream_tick: u64) -> Self {");
        self.line(format!("{} {{ frame, stream_tick }}", p.ack));
        self.close("}");
        self.getter("frame", "u64", "self.frame");
        self.getter("stream_tick", "u64", "self.stream_tick");
        self.close("}");
    }

    /// The position and components of a spawn or a full frame's entity.
    fn positioned(&mut self, component: &str) {
        self.getter("position", "[i64; 3]", "[self.x, self.y, self.z]");
        self.getter("components", &format!("&[{component}]"), "&self.components");
    }

    fn full_frame(&mut self, d: &str, full: &Framed, entity: &str) {
        self.blank();
        self.open(format!("impl {d}::FullFrameFrame for {} {{", full.name));
        self.line(format!("type Entity = {entity};"));
        let precision = if full.precision { "precision" } else { "_" };
        self.open(format!(
            "fn new(tick: u64, {precision}: f32, entities: Vec<{entity}>) -> Self {{"
        ));
        let with = if full.precision { "precision, " } else { "" };
        self.line(format!("{} {{ tick, {with}entities }}", full.name));
        self.close("}");
        self.getter("tick", "u64", "self.tick");
        self.getter("entities", &format!("&[{entity}]"), "&self.entities");
        self.close("}");
    }

    // ---- NetBaseline ----

    fn baseline(&mut self, p: &BaselinePlan) {
        let b = format!("{}::baseline", self.c);
        let rt = self.g.rt.clone();
        let name = &p.name;
        let value = format!("{name}Value");
        let n = p.components.len();
        self.marker(
            name,
            "NetBaseline",
            &p.doc,
            "The NetBaseline machines' components and frames of this protocol.",
        );
        self.blank();
        self.open(format!("impl {name} {{"));
        self.line("/// Component types, in schema order (the mask's bit order).");
        self.line(format!("pub const COMPONENT_TYPES: usize = {n};"));
        self.close("}");

        self.blank();
        self.line(format!(
            "/// One component's value of [`{name}`]: its type is the variant's index."
        ));
        self.line("#[derive(Debug, Clone, PartialEq)]");
        self.open(format!("pub enum {value} {{"));
        for (i, c) in p.components.iter().enumerate() {
            let fallback = format!("Type {i}.");
            self.doc(&c.doc, &fallback);
            self.line(format!("{}({}),", variant(&c.field), c.record));
        }
        self.close("}");

        self.blank();
        self.open(format!("impl {b}::BaselineSchema for {name} {{"));
        self.line(format!("type Value = {value};"));
        self.line(format!(
            "type Components<T: Clone + ::std::fmt::Debug + PartialEq + Default> = [T; {n}];"
        ));
        self.line(format!("type Snapshot = {};", p.snapshot));
        self.line(format!("type Ack = {};", p.ack));
        self.line(format!("const ACK_WINDOW: u16 = {};", p.ack_window));
        self.line(format!(
            "const MAX_LOST_PER_SNAPSHOT: usize = {} as usize;",
            p.max_lost
        ));
        self.line(format!("/// `{}` before its body.", p.snapshot));
        self.line(format!("const HEADER_BYTES: usize = {};", p.header_bytes));
        self.line("/// The lost and entry counts.");
        self.line(format!("const COUNT_BITS: usize = {};", p.count_bits));
        self.line("/// The gap at its widest, the generation and the mask.");
        self.line(format!(
            "const ENTRY_HEAD_BITS: usize = {};",
            p.entry_head_bits
        ));
        self.line("/// A slot and a generation.");
        self.line(format!("const LOST_BITS: usize = {};", p.lost_bits));

        self.open(format!("fn index(value: &{value}) -> usize {{"));
        self.open("match value {");
        for (i, c) in p.components.iter().enumerate() {
            self.line(format!("{value}::{}(_) => {i},", variant(&c.field)));
        }
        self.close("}");
        self.close("}");
        self.open(format!(
            "fn bits(value: &{value}) -> Result<Vec<u8>, {rt}::EncodeError> {{"
        ));
        self.line(format!("let mut w = {rt}::BitWriter::new();"));
        self.open("match value {");
        for c in &p.components {
            self.line(format!(
                "{value}::{}(v) => v.write_bits(&mut w)?,",
                variant(&c.field)
            ));
        }
        self.close("}");
        self.line("let mut out = Vec::new();");
        self.line("w.finish(&mut out);");
        self.line("Ok(out)");
        self.close("}");
        self.open(format!("fn bit_len(value: &{value}) -> usize {{"));
        self.open("match value {");
        for c in &p.components {
            self.line(format!("{value}::{}(v) => v.bit_len(),", variant(&c.field)));
        }
        self.close("}");
        self.close("}");

        self.snapshot_fn(p, &b, &value);

        let s = &p.snapshot;
        self.open(format!("fn sequence(snapshot: &{s}) -> u16 {{"));
        self.line("snapshot.sequence");
        self.close("}");
        self.read_fn(p, &b, &value);
        self.open(format!("fn ack(sequence: u16) -> {} {{", p.ack));
        self.line(format!("{} {{ sequence }}", p.ack));
        self.close("}");
        self.open(format!("fn acked(ack: &{}) -> u16 {{", p.ack));
        self.line("ack.sequence");
        self.close("}");
        self.close("}");
    }

    fn snapshot_fn(&mut self, p: &BaselinePlan, b: &str, value: &str) {
        let (body_field, body) = (&p.body.0, &p.body.1);
        let (mask_field, mask) = (&p.mask.0, &p.mask.1);
        self.open(format!(
            "fn snapshot(sequence: u16, lost: &[{b}::EntityId], entries: Vec<{b}::WireEntry<Self>>) -> {} {{",
            p.snapshot
        ));
        self.line("let lost = lost");
        self.line("    .iter()");
        self.line(format!(
            "    .map(|e| {} {{ slot: e.slot, generation: e.generation }})",
            p.lost
        ));
        self.line("    .collect();");
        self.line("let entries = entries");
        self.line("    .into_iter()");
        self.open("    .map(|e| {");
        let fields: Vec<String> = p.components.iter().map(|c| ident(&c.field)).collect();
        self.line(format!("let [{}] = e.components;", fields.join(", ")));
        self.line(format!("let mut {mask_field} = {mask}::empty();"));
        for (c, f) in p.components.iter().zip(&fields) {
            // A value of another type in a component's place is not that component.
            let boxed = self.g.is_boxed(&p.entry, &c.field);
            let v = if boxed { "Box::new(v)" } else { "v" };
            self.line(format!(
                "let {f} = match {f} {{ Some({value}::{}(v)) => Some({v}), _ => None }};",
                variant(&c.field)
            ));
            self.line(format!(
                "{mask_field}.set({mask}::{}, {f}.is_some());",
                c.bit
            ));
        }
        let gap = match p.gap {
            Gap::Plain { .. } => "gap: e.gap,".to_string(),
            Gap::Wide { narrow, .. } => {
                self.line(format!(
                    "// NB-4: a gap below {} takes {narrow} bits, a wider one the wide gap's.",
                    1u64 << narrow
                ));
                self.line(format!("let wide = e.gap >= 1 << {narrow};"));
                format!(
                    "wide, gap: (!wide).then_some(e.gap as {}), wide_gap: wide.then_some(e.gap),",
                    uint_type(narrow)
                )
            }
        };
        self.line(format!(
            "{} {{ {gap} generation: e.generation, {mask_field}, {} }}",
            p.entry,
            fields.join(", ")
        ));
        self.close("    })");
        self.line("    .collect();");
        self.line(format!(
            "{} {{ sequence, {}: {body} {{ lost, entries }} }}",
            p.snapshot,
            ident(body_field)
        ));
        self.close("}");
    }

    fn read_fn(&mut self, p: &BaselinePlan, b: &str, value: &str) {
        let body_field = ident(&p.body.0);
        self.open(format!(
            "fn read(snapshot: &{}) -> (Vec<{b}::EntityId>, Vec<{b}::WireEntry<Self>>) {{",
            p.snapshot
        ));
        self.line("let lost = snapshot");
        self.line(format!("    .{body_field}"));
        self.line("    .lost");
        self.line("    .iter()");
        self.line(format!(
            "    .map(|r| {b}::EntityId {{ slot: r.slot, generation: r.generation }})"
        ));
        self.line("    .collect();");
        let gap = match p.gap {
            Gap::Plain { .. } => "e.gap".to_string(),
            Gap::Wide { .. } => "e.wide_gap.or(e.gap.map(u32::from)).unwrap_or_default()".into(),
        };
        let components: Vec<String> = p
            .components
            .iter()
            .map(|c| {
                let f = ident(&c.field);
                let v = variant(&c.field);
                let copy = self
                    .g
                    .low
                    .plan(&c.record, None)
                    .is_some_and(|plan| self.g.is_copy_record(plan, 0));
                let field = if copy {
                    format!("e.{f}")
                } else {
                    format!("e.{f}.clone()")
                };
                if self.g.is_boxed(&p.entry, &c.field) {
                    format!("{field}.map(|v| {value}::{v}(*v))")
                } else {
                    format!("{field}.map({value}::{v})")
                }
            })
            .collect();
        self.line("let entries = snapshot");
        self.line(format!("    .{body_field}"));
        self.line("    .entries");
        self.line("    .iter()");
        self.line(format!(
            "    .map(|e| {b}::WireEntry {{ gap: {gap}, generation: e.generation, components: [{}] }})",
            components.join(", ")
        ));
        self.line("    .collect();");
        self.line("(lost, entries)");
        self.close("}");
    }

    // ---- delta ----

    fn delta(&mut self, p: &DeltaPlan) {
        let d = format!("{}::delta", self.c);
        let name = &p.name;
        self.marker(
            name,
            "delta",
            &p.doc,
            "The delta machines' frames of this protocol.",
        );
        self.blank();
        self.open(format!("impl {d}::DeltaSchema for {name} {{"));
        self.line(format!("type Plan = {};", p.plan));
        self.line(format!("type Ack = {};", p.ack));
        self.close("}");

        let (flags_field, flags) = (&p.flags.0, &p.flags.1);
        let plan = &p.plan;
        self.blank();
        self.open(format!("impl {d}::PlanFrame for {plan} {{"));
        self.open(format!(
            "fn new(plan: &{d}::DeltaPlan, sequence: u64) -> Self {{"
        ));
        self.line(format!("let mut {flags_field} = {flags}::empty();"));
        self.line(format!(
            "{flags_field}.set({flags}::FULL_BASELINE, plan.full_baseline);"
        ));
        self.line(format!(
            "{flags_field}.set({flags}::{}, plan.baseline_seq.is_some());",
            p.baseline_bit
        ));
        self.line(format!(
            "{plan} {{ {flags_field}, sequence, baseline_seq: plan.baseline_seq, entered: plan.entered.clone(), left: plan.left.clone() }}"
        ));
        self.close("}");
        self.getter("sequence", "u64", "self.sequence");
        self.getter(
            "full_baseline",
            "bool",
            &format!("self.{flags_field}.contains({flags}::FULL_BASELINE)"),
        );
        self.getter("baseline_seq", "Option<u64>", "self.baseline_seq");
        self.getter("entered", "&[u64]", "&self.entered");
        self.getter("left", "&[u64]", "&self.left");
        self.close("}");

        self.blank();
        self.open(format!("impl {d}::DeltaAckFrame for {} {{", p.ack));
        self.open("fn new(newest: u64, mask: u64, digest: u64) -> Self {");
        self.line(format!("{} {{ newest, mask, digest }}", p.ack));
        self.close("}");
        self.getter("newest", "u64", "self.newest");
        self.getter("mask", "u64", "self.mask");
        self.getter("digest", "u64", "self.digest");
        self.close("}");
    }
}

/// A component's variant: its field's name in `PascalCase` (`transform` is `Transform`).
fn variant(field: &str) -> String {
    field
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}
