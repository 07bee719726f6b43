//! A state's groups as typed datagram v2 components (DG-6), in its C++ binding: `XComponent`,
//! the C++ form of the Rust binding's enum (`gen::rust::machines`, `fn components`) and laid
//! out as it is. Its type is the group's index, its data the group's full (or only) form as the
//! byte-aligned frame writes it; the bytes are written and read by the generated record codecs
//! of `protocol.hpp`, so a refusal is theirs, located under the group's name.

use super::{ident, State};

/// One group as a component: its name, documentation, type (its mask bit), and the record of
/// its full (or only) form and whether that record is packed.
struct Group<'p> {
    name: &'p str,
    docs: &'p [String],
    bit: u8,
    record: &'p str,
    packed: bool,
}

/// The members of `XComponent` a group's constructor must not be named as.
const MEMBERS: [&str; 4] = ["value", "component_type", "to_component", "from_component"];

/// The constructor of group `name`: its name, unless that is a keyword or a member's.
fn constructor(name: &str) -> String {
    if MEMBERS.contains(&name) {
        format!("{name}_")
    } else {
        ident(name)
    }
}

impl State<'_, '_> {
    /// `XComponent`: a `std::variant` of the groups' full-form records (in declaration order, so
    /// the alternative's index is the group's mask bit) with a constructor per group,
    /// `component_type()`, `to_component()` and `from_component()`.
    pub(super) fn components(&mut self) {
        let p = self.p;
        let name = format!("{}Component", p.name);
        let frame = self.byte().frame.clone();
        // The full form of a group of two, its only form otherwise: what a whole entity sends.
        let groups: Vec<Group<'_>> = p
            .groups
            .iter()
            .filter_map(|g| {
                let form = g.whole_form()?;
                Some(Group {
                    name: &g.name,
                    docs: &g.docs,
                    bit: g.bit,
                    record: &form.record,
                    packed: form.packed,
                })
            })
            .collect();
        // component_type() reads the type off the alternative's index.
        assert!(
            groups
                .iter()
                .enumerate()
                .all(|(i, g)| usize::from(g.bit) == i),
            "state {}: every group has a full or only form, its bit its place",
            p.name
        );
        let alternatives: Vec<String> = groups
            .iter()
            .map(|g| format!("protocol::{}", g.record))
            .collect();
        self.blank();
        self.line(format!(
            "// ---- state {}: its groups as datagram v2 components",
            p.name
        ));
        self.blank();
        self.doc_text(&format!(
            "One group of an entity of state `{}` as a component (DG-6): its type is the group's \
             index (its change-mask bit), its data the group's full form as `{frame}` writes it. \
             Made by the group's function (`{name}::{}(...)`); `value` holds the group's record, \
             the groups in declaration order.",
            p.name,
            constructor(groups.first().map_or("", |g| g.name)),
        ));
        self.open(format!("struct {name} {{"));
        self.line("/// The groups' records, in declaration order.");
        let one = format!("using Value = std::variant<{}>;", alternatives.join(", "));
        if one.len() + self.g.code.column() <= 100 {
            self.line(one);
        } else {
            self.line("using Value = std::variant<");
            let last = alternatives.len().saturating_sub(1);
            for (i, a) in alternatives.iter().enumerate() {
                let end = if i == last { ">;" } else { "," };
                self.line(format!("    {a}{end}"));
            }
        }
        self.line("/// The group this component is, as its record.");
        self.line("Value value;");
        for (i, g) in groups.iter().enumerate() {
            self.blank();
            if g.docs.is_empty() {
                self.line(format!("/// Type {}.", g.bit));
            }
            self.doc(g.docs);
            self.open(format!(
                "static {name} {}(protocol::{} v) {{",
                constructor(g.name),
                g.record
            ));
            self.line(format!(
                "return {name}{{Value(std::in_place_index<{i}>, std::move(v))}};"
            ));
            self.close("}");
        }

        self.blank();
        self.line("/// The component's type: its group's index.");
        self.open("uint8_t component_type() const {");
        self.line("return static_cast<uint8_t>(value.index());");
        self.close("}");

        self.blank();
        self.line("/// The component change that carries this value: `C` is the datagram schema's");
        self.line("/// component (a `type` and its optional `data`).");
        self.line("template <typename C>");
        self.open("rt::Result<C, rt::EncodeError> to_component() const {");
        self.line("std::vector<uint8_t> data;");
        self.open("{");
        self.line("rt::Writer w(data);");
        self.open("switch (value.index()) {");
        for (i, g) in groups.iter().enumerate() {
            if g.packed {
                // The bit writer appends its padded body to `w` when it finishes.
                self.open(format!("case {i}: {{"));
                self.line("rt::BitWriter b(w);");
                self.open(format!(
                    "if (!protocol::detail::write_bits(b, std::get<{i}>(value))) {{"
                ));
                self.line("return b.error();");
                self.close("}");
                self.line("b.finish();");
                self.line("break;");
                self.close("}");
            } else {
                self.line(format!("case {i}:"));
                self.g.code.indent += 1;
                self.open(format!(
                    "if (!protocol::detail::write(w, std::get<{i}>(value))) {{"
                ));
                self.line("return w.error();");
                self.close("}");
                self.line("break;");
                self.g.code.indent -= 1;
            }
        }
        self.close("}");
        self.close("}");
        self.line("C component;");
        self.line("component.type = component_type();");
        self.line("component.data = std::move(data);");
        self.line("return component;");
        self.close("}");

        self.blank();
        self.line(
            "/// The value a component carries, or std::nullopt for a removal and for a type the",
        );
        self.line(
            "/// state does not declare (DG-6: a reader skips a type it does not know). Bytes that",
        );
        self.line(
            "/// do not decode to exactly one value are an error at their offset in the component,",
        );
        self.line("/// under the group's name.");
        self.line("template <typename C>");
        self.open(format!(
            "static rt::Result<std::optional<{name}>> from_component(const C& component) {{"
        ));
        self.open("if (!component.data) {");
        self.line(format!("return std::optional<{name}>();"));
        self.close("}");
        self.line("const std::vector<uint8_t>& data = *component.data;");
        self.line("rt::Reader r(data.data(), data.size());");
        self.open("switch (component.type) {");
        for g in &groups {
            let field = g.name;
            self.open(format!("case {}: {{", g.bit));
            self.line(format!("protocol::{} v;", g.record));
            if g.packed {
                self.line("auto read = [&](rt::BitReader& b) { return protocol::detail::read_bits(b, v); };");
                self.open("if (!r.packed(read) || !r.finish()) {");
            } else {
                self.open("if (!protocol::detail::read(r, v) || !r.finish()) {");
            }
            self.line(format!("r.in(\"{field}\");"));
            self.line("return r.take_error();");
            self.close("}");
            self.line(format!(
                "return std::optional<{name}>({}(std::move(v)));",
                constructor(field)
            ));
            self.close("}");
        }
        self.line("default:");
        self.line(format!("    return std::optional<{name}>();"));
        self.close("}");
        self.close("}");

        self.blank();
        self.line("/// Two components of the same group with the same record.");
        self.open(format!(
            "friend bool operator==(const {name}& a, const {name}& b) {{"
        ));
        self.line("return a.value == b.value;");
        self.close("}");
        self.blank();
        self.line("/// Two components of different groups, or of different records.");
        self.open(format!(
            "friend bool operator!=(const {name}& a, const {name}& b) {{"
        ));
        self.line("return !(a == b);");
        self.close("}");
        self.close("};");
    }
}

#[cfg(test)]
mod tests {
    use super::constructor;

    #[test]
    fn a_group_named_as_a_member_gets_a_constructor_of_its_own() {
        assert_eq!(constructor("pose"), "pose");
        assert_eq!(constructor("value"), "value_");
        assert_eq!(constructor("to_component"), "to_component_");
        // A keyword, as every other C++ name the backend prints.
        assert_eq!(constructor("delete"), "delete_");
    }
}
