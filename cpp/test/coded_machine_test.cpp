// CODE-2 and CODE-3 in the C++ machines (include/ackwire_acked.hpp), proved independently of the
// coder as the Rust codec's acked/coded_tests.rs proves them: a test-only coded schema, Probe,
// whose frames are kind 12's (the generated reference::PackedReference, build/gen/reference.hpp)
// with the `older` byte and, for every change, a digest of the records its basis gives, so that
// a client whose basis differs from the server's refuses the frame. Run under loss, duplication
// and reordering, every frame the client applies was decoded against the server's basis; older
// snapshots are named; a frame whose older snapshot the client does not hold is dropped and
// counted; kind 12 through the same driver names none and drops none for it.

#include "ackwire_acked.hpp"
#include "reference.hpp"
#include "reference/presenter.hpp"

#include "check.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ackwire;
using protocol::EntityState;
using protocol::StateFlags;
using reference::PackedReference;
using Frame = reference::Frame;
using Bytes = std::vector<uint8_t>;
using Kind = acked::Delivery<protocol::Event>::Kind;
using Inputs = acked::ScheduledInputs<protocol::Input>;

// ---- the probe schema ----

/// What the probe's decoder checked.
struct Checked {
    /// Frames read against a basis that names an older snapshot.
    uint64_t frames_with_older = 0;
    /// Changes whose basis digest matched.
    uint64_t changes = 0;
    /// Of those, changes of an entity held in both the base and the older snapshot.
    uint64_t in_both = 0;
};

Checked checked_so_far;

Checked take_checked() {
    const Checked c = checked_so_far;
    checked_so_far = Checked{};
    return c;
}

/// FNV-1a of the change's id and the records its basis gives (base, then older when the frame
/// names one), each after a byte saying whether it is there.
uint32_t digest(uint16_t eid, const std::optional<EntityState>& b,
    const std::optional<EntityState>& o) {
    Bytes buf{static_cast<uint8_t>(eid & 0xff), static_cast<uint8_t>(eid >> 8)};
    for (const std::optional<EntityState>* r : {&b, &o}) {
        buf.push_back(r->has_value() ? 1 : 0);
        if (r->has_value()) {
            PackedReference::write_record(**r, buf);
        }
    }
    return rt::fnv1a32(buf.data(), buf.size());
}

rt::DecodeError bad(size_t at, const char* field) {
    rt::DecodeError e(rt::ErrorKind::invalid_condition, at);
    e.path.push_field(field);
    return e;
}

uint32_t u32_at(const uint8_t* b) {
    return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

void put_u32(Bytes& out, uint32_t v) {
    for (unsigned i = 0; i < 4; ++i) {
        out.push_back(static_cast<uint8_t>(v >> (8 * i)));
    }
}

/// Kind 12's frames with a coded frame's basis made visible: `u8 older | u32 len | len bytes of
/// kind 12 | u32 digest × changed_count`. `HELD` is its HELD_RING (the protocol's unless a test
/// shrinks it under SENT_RING to make older snapshots go).
template <size_t HELD>
struct Probe : PackedReference {
    static constexpr size_t HELD_RING = HELD;
    static constexpr const char* FRAME_NAME = "probe";
    static constexpr bool CODED = true;

    static rt::EncodeStatus encode_frame(const Frame& f, Bytes& out) {
        return encode_frame_on(f, 0, coded::NoBasis<Record>{}, out);
    }

    static std::optional<rt::DecodeError> decode_frame_into(
        const uint8_t* data, size_t len, Frame& out) {
        uint8_t older = 0;
        return read(data, len, nullptr, out, older);
    }

    static std::optional<rt::DecodeError> read_basis(
        const uint8_t* data, size_t len, coded::CodedBasisTicks& out) {
        Frame f;
        uint8_t older = 0;
        if (auto e = read(data, len, nullptr, f, older)) {
            return e;
        }
        out = coded::CodedBasisTicks{f.tick, f.base_tick, f.keyframe, older};
        return std::nullopt;
    }

    static rt::EncodeStatus encode_frame_on(const Frame& f, uint8_t older,
        const coded::CodedBasis<Record>& basis, Bytes& out) {
        // CODE-2: a keyframe names no older snapshot.
        if (f.keyframe && older != 0) {
            rt::EncodeError e(rt::ErrorKind::invalid_condition);
            e.path.push_field("older");
            return e;
        }
        Bytes packed;
        if (auto e = PackedReference::encode_frame(f, packed)) {
            return e;
        }
        out.push_back(older);
        put_u32(out, static_cast<uint32_t>(packed.size()));
        out.insert(out.end(), packed.begin(), packed.end());
        for (const auto& c : f.changes) {
            const uint16_t eid = change_eid(c);
            const std::optional<EntityState> o =
                older == 0 ? std::optional<EntityState>() : basis.older(eid);
            put_u32(out, digest(eid, basis.base(eid), o));
        }
        return std::nullopt;
    }

    static std::optional<rt::DecodeError> decode_frame_on_into(const uint8_t* data, size_t len,
        const coded::CodedBasis<Record>& basis, Frame& out) {
        uint8_t older = 0;
        return read(data, len, &basis, out, older);
    }

    /// The older byte and the kind 12 frame, read into `out`; the digests held to `basis` when
    /// there is one.
    static std::optional<rt::DecodeError> read(const uint8_t* data, size_t len,
        const coded::CodedBasis<Record>* basis, Frame& out, uint8_t& older) {
        if (len < 5) {
            return bad(0, "len");
        }
        older = data[0];
        const uint32_t n = u32_at(data + 1);
        if (n > len - 5) {
            return bad(1, "len");
        }
        if (auto e = PackedReference::decode_frame_into(data + 5, n, out)) {
            return e;
        }
        if (out.keyframe && older != 0) {
            return bad(0, "older");
        }
        const size_t at = 5 + size_t{n};
        if ((len - at) / 4 != out.changes.size() || (len - at) % 4 != 0) {
            return bad(at, "digests");
        }
        if (basis == nullptr) {
            return std::nullopt;
        }
        Checked c = checked_so_far;
        c.frames_with_older += older != 0 ? 1u : 0u;
        for (size_t i = 0; i < out.changes.size(); ++i) {
            const uint16_t eid = change_eid(out.changes[i]);
            const std::optional<EntityState> b = basis->base(eid);
            const std::optional<EntityState> o =
                older == 0 ? std::optional<EntityState>() : basis->older(eid);
            if (digest(eid, b, o) != u32_at(data + at + 4 * i)) {
                return bad(at + 4 * i, "basis");
            }
            c.changes += 1;
            c.in_both += b && o ? 1u : 0u;
        }
        checked_so_far = c;
        return std::nullopt;
    }
};

static_assert(acked::is_coded<Probe<64>>, "the probe is coded");
static_assert(!acked::is_coded<PackedReference>, "kind 12 is not");
static_assert(!acked::is_coded<reference::Reference>, "nor kind 6");

// ---- the world and the lossy driver ----

/// xorshift64, deterministic from its seed.
struct Rng {
    uint64_t s;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

/// A world of `n` entities that move, turn, lose health and now and then live again under their
/// id; S_N for the server's client through the reference presenter.
class Scene {
public:
    Scene(uint64_t seed, uint16_t n)
        : presenter_(reference::ViewConfig{{1}, acked::TierBoundary{12.0f, 14.0f}, 6}),
          rng_{seed * 2 + 1} {
        for (uint16_t eid = 1; eid <= n; ++eid) {
            reference::WorldEntity e;
            e.life = 1;
            e.x = static_cast<float>(eid) * 3.0f;
            e.y = -static_cast<float>(eid);
            e.hp = 100;
            world_[eid] = e;
        }
    }

    acked::ServerState<EntityState> step(uint32_t tick) {
        for (auto& [eid, w] : world_) {
            switch (rng_.below(8)) {
                case 0:
                    break;
                case 1:
                    w.hp = static_cast<uint8_t>(w.hp > 1 ? w.hp - 1 : 1);
                    break;
                case 2:
                    if (rng_.below(20) == 0) {
                        w.life += 1;
                        w.x = static_cast<float>(rng_.below(40));
                    }
                    break;
                default:
                    w.x += 0.02f * static_cast<float>(1 + eid % 5);
                    w.y -= 0.01f * static_cast<float>(eid % 3);
                    w.yaw += 0.05f;
                    if (eid % 2 == 0) {
                        const double half = tick * eid * 0.01;
                        w.orient = std::array<float, 4>{0.0f, 0.0f,
                            static_cast<float>(std::sin(half)), static_cast<float>(std::cos(half))};
                    }
                    break;
            }
        }
        return presenter_.present(tick, world_);
    }

private:
    reference::World world_;
    reference::Presenter presenter_;
    Rng rng_;
};

/// What a lossy run did.
struct Outcome {
    uint64_t shown = 0;
    uint64_t dropped = 0;
    uint64_t dropped_older = 0;
    uint64_t older_named = 0;
    /// The bytes of every frame the server encoded.
    uint64_t bytes = 0;
};

/// Runs `ticks` ticks of a scene through an encoder and a decoder of `S` over a network that
/// loses `loss` percent of frames each way, duplicates `dup` percent and delays each by up to
/// `jitter` ticks, then heals for 30 ticks: every frame shown is S_N of its tick (the client's
/// state hash is the server's check of it), no frame is refused (a probe frame read against
/// another basis than the server's is), and the client ends where the server is.
template <typename S>
Outcome run_lossy(uint64_t seed, uint32_t ticks, uint32_t loss, uint32_t dup, uint32_t jitter) {
    Rng rng{seed + 7};
    Scene scene(seed, 16);
    acked::AckedEncoder<S, Inputs> enc(Inputs(acked::InputWindow{4, 64}));
    acked::AckedDecoder<S> dec;
    std::map<uint32_t, uint32_t> truth;
    std::multimap<uint32_t, Bytes> down;
    std::multimap<uint32_t, uint32_t> up;
    bool all_true = true;
    bool none_refused = true;
    uint64_t bytes = 0;
    for (uint32_t t = 1; t <= ticks + 40; ++t) {
        const bool lossy = t + 30 < ticks;
        if (t <= ticks) {
            acked::ServerState<EntityState> state = scene.step(t);
            truth[t] = acked::server_check<S>(state);
            auto out = enc.encode(t, std::move(state), {});
            if (!CHECK(out.ok())) {
                std::printf("seed %llu tick %u: %s\n", static_cast<unsigned long long>(seed), t,
                    out.error().message().c_str());
                return Outcome{};
            }
            bytes += out.value().bytes.size();
            const uint32_t copies = lossy && rng.below(100) < dup ? 2 : 1;
            for (uint32_t c = 0; c < copies; ++c) {
                if (!lossy || rng.below(100) >= loss) {
                    down.emplace(t + 1 + (lossy && jitter > 0 ? rng.below(jitter + 1) : 0),
                        out.value().bytes);
                }
            }
        }
        for (auto it = down.begin(); it != down.end() && it->first <= t;) {
            const auto d = dec.deliver(it->second);
            if (d.kind == Kind::undecodable || d.kind == Kind::inapplicable) {
                if (none_refused) {
                    std::printf("seed %llu tick %u: refused: %s\n",
                        static_cast<unsigned long long>(seed), t,
                        d.error ? d.error->message().c_str() : d.why);
                }
                none_refused = false;
            }
            if (d.kind == Kind::shown) {
                all_true = all_true && truth[d.report->tick] == dec.state_hash()
                    && d.report->check != std::optional<bool>(false);
            }
            it = down.erase(it);
        }
        for (auto it = up.begin(); it != up.end() && it->first <= t;) {
            acked::AckContent<protocol::Input> ack;
            ack.ack_tick = it->second;
            enc.on_ack(t, ack);
            it = up.erase(it);
        }
        if (!lossy || rng.below(100) >= loss) {
            up.emplace(t + 1 + (lossy && jitter > 0 ? rng.below(jitter + 1) : 0), dec.ack_tick());
        }
    }
    CHECK(none_refused);
    CHECK(all_true);
    CHECK(dec.held_count() <= S::HELD_RING);
    CHECK(dec.shown_tick() == std::optional<uint32_t>(ticks));
    CHECK_EQ(dec.state_hash(), truth[ticks]);
    const acked::DecoderCounters& c = dec.counters();
    return Outcome{c.applied, c.stale + c.unknown_base, c.unknown_older,
        enc.counters().older_named, bytes};
}

// ---- the tests ----

TEST(every_frame_applied_had_the_servers_basis_under_loss_dup_and_reordering) {
    // CODE-2, CODE-3: every frame the client applies was read against the records the server
    // encoded it against (the probe refuses it otherwise, and the driver fails on a refused
    // frame), older snapshots are named and found, and with HELD_RING above SENT_RING (ACK-1)
    // none is missing.
    take_checked();
    uint64_t dropped_older = 0;
    const uint32_t losses[] = {10, 25, 45};
    const uint32_t jitters[] = {1, 3, 8};
    for (uint64_t seed = 0; seed < 12; ++seed) {
        const Outcome o =
            run_lossy<Probe<64>>(seed, 200, losses[seed % 3], 10, jitters[seed % 3]);
        CHECK(o.shown > 0 && o.dropped > 0);
        CHECK(o.older_named > 0);
        dropped_older += o.dropped_older;
    }
    const Checked c = take_checked();
    CHECK(c.frames_with_older > 500);
    CHECK(c.in_both > 500);
    CHECK_EQ(dropped_older, uint64_t{0});
}

TEST(frames_whose_older_snapshot_is_gone_are_dropped_and_counted) {
    // CODE-3 when the client lets older snapshots go: with HELD_RING at 6, under SENT_RING (a
    // client ACK-1 forbids), frames whose older snapshot it no longer holds are dropped and
    // counted, and the stream still shows only S_N and converges.
    static_assert(Probe<6>::HELD_RING < Probe<6>::SENT_RING, "a ring under SENT_RING");
    uint64_t dropped_older = 0;
    for (uint64_t seed = 0; seed < 12; ++seed) {
        const Outcome o = run_lossy<Probe<6>>(seed, 200, 30, 10, 6);
        CHECK(o.dropped >= o.dropped_older);
        dropped_older += o.dropped_older;
    }
    CHECK(dropped_older > 0);
}

TEST(kind_12_through_the_same_driver_names_no_older_snapshot) {
    // The machines leave a schema that is not coded as it was.
    for (uint64_t seed = 0; seed < 4; ++seed) {
        const Outcome o = run_lossy<PackedReference>(seed, 200, 25, 10, 3);
        CHECK(o.shown > 0);
        CHECK_EQ(o.older_named, uint64_t{0});
        CHECK_EQ(o.dropped_older, uint64_t{0});
    }
}

TEST(the_generated_coded_schema_shows_every_state_in_fewer_bytes_than_kind_12) {
    // The generated kind 13 schema (reference::CodedReference) through the same driver: every
    // frame shown is S_N of its tick, older snapshots are named and held, and over the same
    // world and the same network its frames take fewer bytes than kind 12's.
    static_assert(acked::is_coded<reference::CodedReference>, "kind 13 is coded");
    uint64_t coded_bytes = 0;
    uint64_t packed_bytes = 0;
    for (uint64_t seed = 0; seed < 6; ++seed) {
        const Outcome coded = run_lossy<reference::CodedReference>(seed, 200, 25, 10, 3);
        const Outcome packed = run_lossy<PackedReference>(seed, 200, 25, 10, 3);
        CHECK(coded.shown > 0);
        CHECK(coded.older_named > 0);
        CHECK_EQ(coded.dropped_older, uint64_t{0});
        CHECK(coded.bytes < packed.bytes);
        coded_bytes += coded.bytes;
        packed_bytes += packed.bytes;
    }
    std::printf("  kind 13: %llu bytes, kind 12: %llu bytes over the same runs\n",
        static_cast<unsigned long long>(coded_bytes), static_cast<unsigned long long>(packed_bytes));
}

/// The records of a basis, by id, as a test holds them.
class MapBasis final : public coded::CodedBasis<EntityState> {
public:
    std::map<uint16_t, EntityState> base_records;
    std::map<uint16_t, EntityState> older_records;

    std::optional<EntityState> base(uint16_t eid) const override { return find(base_records, eid); }
    std::optional<EntityState> older(uint16_t eid) const override {
        return find(older_records, eid);
    }

private:
    static std::optional<EntityState> find(const std::map<uint16_t, EntityState>& m, uint16_t eid) {
        auto it = m.find(eid);
        return it == m.end() ? std::nullopt : std::optional<EntityState>(it->second);
    }
};

TEST(a_coded_frame_reads_back_against_its_basis_and_only_against_it) {
    // protocol::AckedCoded on its own: a frame of stepped poses and an orientation, coded
    // against a base and an older snapshot, decodes against them to the same frame and
    // re-encodes to the same bytes; against no basis its values are predicted otherwise, so it
    // does not read back as the same frame.
    MapBasis basis;
    protocol::AckedCoded f;
    f.tick = 40;
    f.base_tick = 38;
    f.last_seq = 7;
    f.older = 3;
    for (uint16_t eid = 1; eid <= 5; ++eid) {
        EntityState b;
        b.x = 100 * eid;
        b.y = -20 * eid;
        b.z = 3;
        b.hp = 90;
        b.measured = 38;
        protocol::Orientation o;
        o.q = rt::from_xyzw({0.0f, 0.0f, 0.6f, 0.8f}, 9);
        b.orient = o;
        EntityState older = b;
        older.x -= 30 * eid;
        older.y += 3;
        basis.base_records[eid] = b;
        basis.older_records[eid] = older;
        protocol::PackedChange c;
        c.eid = eid;
        c.mask.set(protocol::PackedMask::POSE);
        c.mask.set(protocol::PackedMask::ORIENT);
        protocol::PackedPoseStep step;
        step.dx = 20 * eid;
        step.dy = -2;
        step.dz = 0;
        step.yaw = 4;
        c.pose_step = step;
        protocol::Orientation q;
        q.q = rt::from_xyzw({0.0f, 0.1f, 0.6f, 0.79f}, 9);
        c.orient = q;
        f.body.changes.push_back(c);
    }
    std::vector<uint8_t> bytes;
    if (!CHECK(!f.encode(bytes, basis))) {
        return;
    }
    CHECK_EQ(bytes[0], uint8_t{13});
    auto ticks = protocol::AckedCoded::read_basis(bytes.data(), bytes.size());
    if (CHECK(ticks.ok())) {
        CHECK_EQ(ticks.value().tick, uint32_t{40});
        CHECK_EQ(ticks.value().base_tick, uint32_t{38});
        CHECK_EQ(ticks.value().older, uint8_t{3});
        CHECK(!ticks.value().keyframe);
    }
    auto back = protocol::AckedCoded::decode(bytes.data(), bytes.size(), basis);
    if (CHECK(back.ok())) {
        CHECK(back.value() == f);
        std::vector<uint8_t> again;
        CHECK(!back.value().encode(again, basis));
        CHECK(again == bytes);
        // The JSON form reads back as the frame.
        json::Error error;
        protocol::AckedCoded parsed;
        CHECK(protocol::from_json(protocol::to_json(back.value()), parsed, error));
        CHECK(parsed == f);
    }
    auto blind = protocol::AckedCoded::decode(bytes.data(), bytes.size(),
        coded::NoBasis<EntityState>{});
    CHECK(!blind.ok() || !(blind.value() == f));
    // Each byte cut short is refused, never read past.
    for (size_t len = 0; len < bytes.size(); ++len) {
        CHECK(!protocol::AckedCoded::decode(bytes.data(), len, basis).ok());
    }
    // CODE-2: a keyframe naming an older snapshot is refused both ways.
    protocol::AckedCoded key = f;
    key.flags.set(protocol::AckedFlags::KEYFRAME);
    std::vector<uint8_t> refused;
    auto e = key.encode(refused, basis);
    if (CHECK(e.has_value())) {
        CHECK(e->kind == rt::ErrorKind::invalid_condition);
        CHECK_EQ(e->path.str(), std::string("older"));
    }
}

/// A vector case's basis member into `out`: `{"base": [{"eid", "state"}], "older": [...]}`.
bool basis_of(const json::Value& j, MapBasis& out, std::string& why) {
    for (const char* side : {"base", "older"}) {
        const json::Value* list = j.find(side);
        if (list == nullptr) {
            continue;
        }
        for (const json::Value& entry : list->items()) {
            const json::Value* eid = entry.find("eid");
            const json::Value* state = entry.find("state");
            json::Error error;
            uint16_t id = 0;
            EntityState record;
            if (eid == nullptr || state == nullptr || !json::get_uint(*eid, id, error)
                || !protocol::from_json(*state, record, error)) {
                why = std::string(side) + ": " + error.text();
                return false;
            }
            (std::string(side) == "base" ? out.base_records : out.older_records)[id] = record;
        }
    }
    return true;
}

TEST(every_acked_coded_frame_vector_decodes_and_encodes_as_rusts) {
    // vectors/frames/acked_coded.json, recorded from the Rust codec: each case's bytes decode
    // against its basis to its value and encode back to its bytes, or are refused with its
    // error's kind, offset and field path.
    std::ifstream file(ACKWIRE_VECTORS_DIR "/frames/acked_coded.json");
    std::stringstream text;
    text << file.rdbuf();
    auto doc = json::parse(text.str());
    if (!CHECK(doc.ok())) {
        return;
    }
    const json::Value* cases = doc.value().find("cases");
    if (!CHECK(cases != nullptr)) {
        return;
    }
    size_t decoded = 0;
    size_t refused = 0;
    for (const json::Value& c : cases->items()) {
        const std::string name = c.find("name") != nullptr ? c.find("name")->text() : "?";
        MapBasis basis;
        std::string why;
        if (const json::Value* b = c.find("basis")) {
            if (!CHECK(basis_of(*b, basis, why))) {
                std::printf("  %s: basis: %s\n", name.c_str(), why.c_str());
                continue;
            }
        }
        std::vector<uint8_t> bytes;
        if (!CHECK(rt::from_hex(c.find("hex")->text(), bytes, why))) {
            continue;
        }
        auto got = protocol::AckedCoded::decode(bytes.data(), bytes.size(), basis);
        if (const json::Value* e = c.find("error")) {
            ++refused;
            const bool ok = !got.ok() && rt::kind_name(got.error().kind) == e->find("kind")->text()
                && std::to_string(got.error().offset) == e->find("offset")->text()
                && (e->find("path") == nullptr
                    || got.error().path_string() == e->find("path")->text());
            if (!CHECK(ok)) {
                std::printf("  %s: expected %s at %s (%s), got %s\n", name.c_str(),
                    e->find("kind")->text().c_str(), e->find("offset")->text().c_str(),
                    e->find("path") ? e->find("path")->text().c_str() : "",
                    got.ok() ? "a frame" : got.error().message().c_str());
            }
            continue;
        }
        ++decoded;
        protocol::AckedCoded want;
        json::Error error;
        if (!CHECK(protocol::from_json(*c.find("value"), want, error))) {
            std::printf("  %s: value: %s\n", name.c_str(), error.text().c_str());
            continue;
        }
        if (!CHECK(got.ok() && got.value() == want)) {
            std::printf("  %s: decoded %s\n", name.c_str(),
                got.ok() ? protocol::to_json(got.value()).dump().c_str()
                         : got.error().message().c_str());
        }
        std::vector<uint8_t> out;
        auto status = want.encode(out, basis);
        if (!CHECK(!status && out == bytes)) {
            std::printf("  %s: encoded %s\n", name.c_str(),
                status ? status->message().c_str() : rt::to_hex(out).c_str());
        }
    }
    CHECK(decoded > 10);
    CHECK(refused > 10);
}

/// Two entities, their poses full and measured on the tick.
acked::ServerState<EntityState> two(uint32_t tick) {
    acked::ServerState<EntityState> s;
    for (uint16_t eid = 1; eid <= 2; ++eid) {
        EntityState r;
        r.x = static_cast<int32_t>(512 * tick * eid);
        r.flags.set(StateFlags::POSE_FULL);
        r.measured = tick;
        r.hp = 1;
        s.emplace_back(eid, acked::Entry<EntityState>{1, r});
    }
    return s;
}

TEST(a_frame_whose_older_snapshot_is_not_held_is_dropped_before_its_changes_are_read) {
    // CODE-3, step by step: the client holds 3 frames; frame 5 goes onto frame 2, which it
    // still holds, naming frame 1, which it let go: dropped as a frame without its base is,
    // counted apart, the acknowledgement unchanged.
    acked::AckedEncoder<Probe<3>, Inputs> enc(Inputs(acked::InputWindow{4, 64}));
    acked::AckedDecoder<Probe<3>> dec;
    std::vector<uint8_t> olders;
    for (uint32_t t = 1; t <= 5; ++t) {
        auto out = enc.encode(t, two(t), {});
        if (!CHECK(out.ok())) {
            return;
        }
        olders.push_back(out.value().bytes[0]);
        CHECK_EQ(dec.deliver(out.value().bytes).kind == Kind::shown, t < 5);
        if (t <= 2) {
            acked::AckContent<protocol::Input> ack;
            ack.ack_tick = dec.ack_tick();
            enc.on_ack(t, ack);
        }
    }
    // Frames 3 to 5 go onto 2 and name 1, the frame before it the client acknowledged.
    CHECK(olders == (std::vector<uint8_t>{0, 0, 1, 1, 1}));
    CHECK_EQ(dec.counters().applied, uint64_t{4});
    CHECK_EQ(dec.counters().unknown_base, uint64_t{1});
    CHECK_EQ(dec.counters().unknown_older, uint64_t{1});
    CHECK_EQ(dec.ack_tick(), uint32_t{4});
    CHECK_EQ(enc.counters().older_named, uint64_t{3});
}

using ProbeEncoder = acked::AckedEncoder<Probe<64>, Inputs>;

/// The frame of tick `t`: "key" or "on BASE", and its older distance.
std::string older_of(ProbeEncoder& enc, uint32_t t) {
    auto out = enc.encode(t, two(t), {});
    if (!CHECK(out.ok())) {
        return "refused";
    }
    const Frame& f = out.value().frame;
    return (f.keyframe ? std::string("key") : "on " + std::to_string(f.base_tick)) + " older "
        + std::to_string(out.value().bytes[0]);
}

acked::AckVerdict ack_of(ProbeEncoder& enc, uint32_t t) {
    acked::AckContent<protocol::Input> ack;
    ack.ack_tick = t;
    return enc.on_ack(t, ack);
}

TEST(the_older_snapshot_is_the_newest_acknowledged_frame_within_255_ticks_before_the_base) {
    // CODE-2 on the server: an acknowledgement too old to move the base counting; none past 255
    // ticks; none for a keyframe, and none acknowledged before a keyframe request.
    ProbeEncoder enc(Inputs(acked::InputWindow{4, 64}));
    for (uint32_t t = 1; t <= 4; ++t) {
        older_of(enc, t);
    }
    // Acks of 3 then, reordered, 1: the base is 3, and 1 is acknowledged too.
    ack_of(enc, 3);
    CHECK(ack_of(enc, 1) == acked::AckVerdict::old);
    CHECK_EQ(older_of(enc, 5), std::string("on 3 older 2"));
    // The ack of 2, late: the newest acknowledged before the base now.
    ack_of(enc, 2);
    CHECK_EQ(older_of(enc, 6), std::string("on 3 older 1"));
    // The base stays 3 until an ack moves it; then 3, 254 ticks before the base, is named, and
    // (below) 1, 256 ticks before it, is not.
    CHECK_EQ(older_of(enc, 257), std::string("on 3 older 1"));
    ack_of(enc, 257);
    CHECK_EQ(older_of(enc, 258), std::string("on 257 older 254"));
    ack_of(enc, 258);
    CHECK_EQ(older_of(enc, 259), std::string("on 258 older 1"));
    ProbeEncoder far(Inputs(acked::InputWindow{4, 64}));
    older_of(far, 1);
    ack_of(far, 1);
    older_of(far, 257);
    ack_of(far, 257);
    CHECK_EQ(older_of(far, 258), std::string("on 257 older 0"));
    // A keyframe request: keyframes, naming nothing, then frames whose older snapshot is
    // acknowledged after the request only.
    acked::AckContent<protocol::Input> request;
    request.keyframe_request = true;
    enc.on_ack(259, request);
    CHECK_EQ(older_of(enc, 260), std::string("key older 0"));
    ack_of(enc, 260);
    CHECK_EQ(older_of(enc, 261), std::string("on 260 older 0"));
    ack_of(enc, 261);
    CHECK_EQ(older_of(enc, 262), std::string("on 261 older 1"));
}

}  // namespace

int main() { return check::run_all(); }
