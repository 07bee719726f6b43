// Tests of the reference protocol's binding (reference.hpp, which `ackwire gen --lang cpp` writes
// for spec/protocol/acked.wire's `state Reference`: the acked schemas Reference, kind 6, and
// PackedReference, kind 12) and of its presenter (reference/presenter.hpp, the game's policy),
// over the codec test.sh generates into build/gen: the orientation group's diff and apply (sent
// whole when it differs, not when equal, refused when a record drops it, kept for the entity's
// life), the record writer against the generated one, the presenter's orientations, the staged
// readers against the generated readers (the same verdict, kind, offset and path on every frame
// and on mutants of them), kind 6 frames through kind 12 and back, the refusals of kind 12 (not
// ascending on encode, a code past kind 6 over_width at the packed body's first byte), what a
// cold decode allocates (docs/limits.md's DECODE_ALLOC_PER_BYTE) and warm deliveries that
// allocate nothing (this binary counts operator new); the state's groups as datagram v2
// components (`ReferenceComponent`) through a Subscription and a ReplicaTable, and refused where
// their bytes do not decode to exactly one value.
//
// The Rust binding of the same declaration holds the same rules; the conformance suite's stream
// vectors (streams/acked, streams/acked_packed) hold the two to the same bytes.

#include "ackwire_acked_half.hpp"
#include "reference.hpp"
#include "reference_baseline.hpp"
#include "reference_datagram.hpp"
#include "reference_delta.hpp"
#include "reference/presenter.hpp"

#include "check.hpp"
#include "count_new.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace ackwire;
using protocol::ChangeMask;
using protocol::EntityState;
using protocol::StateFlags;
using reference::PackedReference;
using reference::Reference;
using reference::StagedChange;
using Frame = reference::Frame;
using Bytes = std::vector<uint8_t>;
using Kind = acked::Delivery<protocol::Event>::Kind;

/// docs/limits.md: a decoder of the reference protocol holds at most this many heap bytes per
/// byte of its input (ackwire_codec::DECODE_ALLOC_PER_BYTE), plus DECODE_ALLOC_SLACK for an
/// error's field path.
constexpr size_t DECODE_ALLOC_PER_BYTE = 48;
constexpr size_t DECODE_ALLOC_SLACK = 256;

// A small xorshift, so that every run draws the same cases.
struct Rng {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
    float unit() { return static_cast<float>(below(2001)) / 1000.0f - 1.0f; }
};

protocol::Orientation orientation(float x, float y, float z, float w) {
    return protocol::Orientation{rt::from_xyzw({x, y, z, w}, 9)};
}

uint32_t bits_of(const protocol::Orientation& o) {
    return static_cast<uint32_t>(state::quat_bits(o.q, 9));
}

EntityState record(int32_t x, std::optional<protocol::Orientation> orient) {
    EntityState r;
    r.x = x;
    r.y = -40;
    r.z = 7;
    r.yaw = 0x1200;
    r.measured = 10;
    r.hp = 90;
    r.seat = 1;
    r.orient = orient;
    r.flags.set(StateFlags::ORIENTED, orient.has_value());
    return r;
}

Bytes generated_bytes(const EntityState& r) {
    Bytes out;
    rt::Writer w(out);
    CHECK(protocol::detail::write(w, r));
    return out;
}

bool same_frame(const Frame& a, const Frame& b) {
    return a.tick == b.tick && a.base_tick == b.base_tick && a.last_seq == b.last_seq
        && a.input_buffer == b.input_buffer && a.keyframe == b.keyframe && a.check == b.check
        && a.removed == b.removed && a.changes == b.changes && a.first_serial == b.first_serial
        && a.events == b.events;
}

const char* const APPLIES = nullptr;

// ---- the orientation group ----

TEST(an_orientation_is_sent_whole_when_it_differs_and_not_when_equal) {
    // ACK-7.
    const protocol::Orientation q1 = orientation(0.1f, 0.2f, 0.3f, 0.9f);
    const protocol::Orientation q2 = orientation(-0.5f, 0.5f, 0.1f, 0.7f);
    CHECK(q1 != q2);
    const EntityState base = record(100, q1);

    // Equal to the base's: no change at all.
    std::optional<StagedChange> c;
    CHECK(!Reference::diff(3, &base, base, 10, c));
    CHECK(!c.has_value());

    // Only the orientation differs: a change of that group alone, the quaternion whole.
    const EntityState turned = record(100, q2);
    CHECK(!Reference::diff(3, &base, turned, 10, c));
    if (CHECK(c.has_value())) {
        CHECK_EQ(c->mask.bits, uint16_t{1u << ChangeMask::ORIENT});
        CHECK_EQ(c->orient_q, bits_of(q2));
        EntityState applied;
        CHECK_EQ(Reference::apply(&base, *c, 10, applied), APPLIES);
        CHECK(applied == turned);
    }

    // The pose moves, the orientation stays: no ORIENT group, and the base's is kept.
    const EntityState moved = record(160, q1);
    CHECK(!Reference::diff(3, &base, moved, 10, c));
    if (CHECK(c.has_value())) {
        CHECK(!c->mask.contains(ChangeMask::ORIENT));
        CHECK_EQ(c->orient_q, uint32_t{0});
        EntityState applied;
        CHECK_EQ(Reference::apply(&base, *c, 10, applied), APPLIES);
        CHECK(applied == moved);
        CHECK(applied.flags.contains(StateFlags::ORIENTED));
    }

    // A whole entity with an orientation carries it.
    CHECK(!Reference::diff(3, nullptr, turned, 10, c));
    if (CHECK(c.has_value())) {
        CHECK(c->mask.contains(ChangeMask::ORIENT));
        CHECK_EQ(c->orient_q, bits_of(q2));
        EntityState applied;
        CHECK_EQ(Reference::apply(nullptr, *c, 10, applied), APPLIES);
        CHECK(applied == turned);
    }
}

TEST(a_record_that_drops_or_misstates_its_orientation_is_refused) {
    // ACK-22.
    const EntityState base = record(100, orientation(0.1f, 0.2f, 0.3f, 0.9f));
    std::optional<StagedChange> c;
    // Dropped: the wire cannot take an orientation away.
    const rt::EncodeStatus dropped = Reference::diff(3, &base, record(100, std::nullopt), 10, c);
    if (CHECK(dropped.has_value())) {
        CHECK_EQ(dropped->kind, rt::ErrorKind::invalid_condition);
        CHECK_EQ(dropped->path.str(), std::string("orient"));
    }
    // ORIENTED without an orientation, and an orientation without ORIENTED.
    EntityState flag_only = record(100, std::nullopt);
    flag_only.flags.set(StateFlags::ORIENTED);
    EntityState value_only = base;
    value_only.flags.set(StateFlags::ORIENTED, false);
    for (const EntityState& bad : {flag_only, value_only}) {
        const rt::EncodeStatus e = Reference::diff(3, nullptr, bad, 10, c);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::invalid_condition);
            CHECK_EQ(e->path.str(), std::string("orient"));
        }
    }
    // A base without one and a record without one: nothing refused.
    const EntityState plain = record(100, std::nullopt);
    CHECK(!Reference::diff(3, &plain, plain, 10, c));
}

TEST(an_orientation_stays_through_pose_changes_of_either_tier) {
    const protocol::Orientation q = orientation(0.3f, -0.2f, 0.6f, 0.7f);
    const EntityState base = record(100, q);
    StagedChange step;
    step.eid = 3;
    step.mask.set(ChangeMask::POSE);
    step.x = 5;
    step.y = -5;
    EntityState r;
    CHECK_EQ(Reference::apply(&base, step, 11, r), APPLIES);
    CHECK_EQ(r.x, int32_t{105});
    CHECK_EQ(r.y, int32_t{-45});
    CHECK(r.orient == q);
    CHECK(r.flags.contains(StateFlags::ORIENTED));
    CHECK(!r.flags.contains(StateFlags::POSE_FULL));
    StagedChange full;
    full.eid = 3;
    full.mask.set(ChangeMask::POSE);
    full.mask.set(ChangeMask::POSE_FULL);
    full.x = static_cast<int32_t>(state::f32_bits(1.0f));
    full.y = static_cast<int32_t>(state::f32_bits(2.0f));
    full.z = static_cast<int32_t>(state::f32_bits(0.5f));
    full.yaw = 16384;
    CHECK_EQ(Reference::apply(&r, full, 12, r), APPLIES);
    CHECK_EQ(r.x, int32_t{512});
    CHECK_EQ(r.z, int32_t{256});
    CHECK_EQ(r.yaw, uint16_t{16384});
    CHECK(r.orient == q);
    CHECK_EQ(r.flags.bits, uint8_t{3});
}

TEST(a_pose_steps_from_the_origin_outside_the_box_and_refuses_what_it_cannot_carry) {
    // A base outside the box (POSE_REACH): the steps count from the origin.
    EntityState far = record(reference::POSE_REACH + 1, std::nullopt);
    EntityState next = far;
    next.x = 300;
    std::optional<StagedChange> c;
    CHECK(!Reference::diff(3, &far, next, 10, c));
    if (CHECK(c.has_value())) {
        CHECK_EQ(c->x, int32_t{300});
        CHECK_EQ(c->y, int32_t{-40});
        EntityState applied;
        CHECK_EQ(Reference::apply(&far, *c, 10, applied), APPLIES);
        CHECK(applied == next);
    }
    // A quantized yaw that is not a multiple of 256, a step past an i16, an age past a u8 or
    // before the frame: over_width at the field.
    // Each record comes whole (no base: its steps count from the origin).
    const auto refused = [](const EntityState& rec, uint32_t tick, const char* path) {
        std::optional<StagedChange> out;
        const rt::EncodeStatus e = Reference::diff(3, nullptr, rec, tick, out);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::over_width);
            CHECK_EQ(e->path.str(), std::string(path));
        }
    };
    EntityState odd_yaw = record(0, std::nullopt);
    odd_yaw.yaw = 0x1201;
    refused(odd_yaw, 10, "pose_step.yaw");
    EntityState big = record(0, std::nullopt);
    big.x = 40000;
    // From the origin a step of 40000 is past an i16.
    refused(big, 10, "pose_step.dx");
    refused(record(0, std::nullopt), 300, "age");
    refused(record(0, std::nullopt), 9, "age");
    // A full pose past what an f32 holds exactly.
    EntityState huge = record(1 << 24, std::nullopt);
    huge.flags.set(StateFlags::POSE_FULL);
    refused(huge, 10, "pose_full.x");
    // Applying: a full pose off the grid and a step past an i32 do not apply.
    StagedChange off;
    off.mask.set(ChangeMask::POSE);
    off.mask.set(ChangeMask::POSE_FULL);
    off.x = static_cast<int32_t>(state::f32_bits(0.001f));
    EntityState out;
    const EntityState base = record(0, std::nullopt);
    CHECK_EQ(std::string(Reference::apply(&base, off, 10, out)),
        std::string("a full pose off its grid"));
    StagedChange whole;
    whole.mask.set(ChangeMask::HEALTH);
    CHECK_EQ(std::string(Reference::apply(nullptr, whole, 10, out)),
        std::string("an entity comes whole without every group"));
    StagedChange aged;
    aged.mask.set(ChangeMask::POSE);
    aged.mask.set(ChangeMask::POSE_AGE);
    aged.age = 20;
    CHECK_EQ(std::string(Reference::apply(&base, aged, 10, out)),
        std::string("a pose measured before tick 0"));
}

TEST(a_record_within_reach_steps_from_its_base) {
    const EntityState base = record(reference::POSE_REACH, std::nullopt);
    EntityState next = base;
    next.x -= 20;
    std::optional<StagedChange> c;
    CHECK(!Reference::diff(3, &base, next, 10, c));
    if (CHECK(c.has_value())) {
        CHECK_EQ(c->x, int32_t{-20});
    }
}

TEST(the_record_writer_writes_what_the_generated_writer_writes) {
    // CHECK-3.
    Rng rng;
    for (int i = 0; i < 500; ++i) {
        std::optional<protocol::Orientation> q;
        if (i % 3 != 0) {
            q = orientation(rng.unit(), rng.unit(), rng.unit(), rng.unit());
        }
        EntityState r = record(static_cast<int32_t>(rng.next()), q);
        r.yaw = static_cast<uint16_t>(rng.next());
        r.measured = static_cast<uint32_t>(rng.next());
        r.flags.set(StateFlags::POSE_FULL, i % 2 == 0);
        Bytes fast;
        Reference::write_record(r, fast);
        CHECK_EQ(fast, generated_bytes(r));
        CHECK_EQ(fast.size(), size_t{q ? 28u : 24u});
    }
    // A record no frame could apply goes to the generated writer, which stops at the fault.
    EntityState bad = record(1, std::nullopt);
    bad.flags.set(StateFlags::ORIENTED);
    Bytes out;
    Reference::write_record(bad, out);
    CHECK_EQ(out.size(), size_t{24});
    EntityState reserved = record(1, std::nullopt);
    reserved.flags.bits = 0x80;
    out.clear();
    Reference::write_record(reserved, out);
    CHECK_EQ(out.size(), size_t{14});
}

// ---- the presenter's orientations ----

TEST(the_presenter_quantizes_the_world_orientation_and_keeps_it_for_the_life) {
    reference::Presenter p(reference::ViewConfig{});
    reference::World world;
    reference::WorldEntity e;
    e.life = 1;
    e.x = 1.0f;
    e.hp = 5;
    e.orient = std::array<float, 4>{0.0f, 0.0f, 0.6f, 0.8f};
    world[4] = e;
    const auto orient_of = [](const acked::ServerState<EntityState>& s) {
        return s.at(0).second.record;
    };
    EntityState r = orient_of(p.present(1, world));
    CHECK(r.orient == orientation(0.0f, 0.0f, 0.6f, 0.8f));
    CHECK(r.flags.contains(StateFlags::ORIENTED));
    // A far entity off its due tick still gets its new orientation at once.
    world[4].x = 30.0f;
    p.present(2, world);
    world[4].orient = std::array<float, 4>{0.6f, 0.0f, 0.0f, 0.8f};
    r = orient_of(p.present(3, world));
    CHECK(r.orient == orientation(0.6f, 0.0f, 0.0f, 0.8f));
    // The world drops it: the last one stays.
    world[4].orient.reset();
    r = orient_of(p.present(4, world));
    CHECK(r.orient == orientation(0.6f, 0.0f, 0.0f, 0.8f));
    CHECK(r.flags.contains(StateFlags::ORIENTED));
    // A new life starts without one.
    world[4].life = 2;
    r = orient_of(p.present(5, world));
    CHECK(!r.orient.has_value());
    CHECK(!r.flags.contains(StateFlags::ORIENTED));
}

// ---- frames ----

// A change of `eid` with every group drawn (POSE forced when a pose bit needs it).
StagedChange draw_change(Rng& rng, uint16_t eid) {
    StagedChange c;
    c.eid = eid;
    const uint32_t bits = rng.below(64);
    const unsigned wide[6] = {ChangeMask::POSE, ChangeMask::HEALTH, ChangeMask::VEHICLE,
        ChangeMask::ORIENT, ChangeMask::POSE_FULL, ChangeMask::POSE_AGE};
    for (unsigned i = 0; i < 6; ++i) {
        c.mask.set(wide[i], ((bits >> i) & 1u) != 0);
    }
    if (c.mask.contains(ChangeMask::POSE_FULL) || c.mask.contains(ChangeMask::POSE_AGE)) {
        c.mask.set(ChangeMask::POSE);
    }
    if (c.mask.contains(ChangeMask::POSE_AGE)) {
        c.age = static_cast<uint8_t>(1 + rng.below(255));
    }
    if (c.mask.contains(ChangeMask::POSE)) {
        if (c.mask.contains(ChangeMask::POSE_FULL)) {
            const auto f = [&] {
                const float v = static_cast<float>(rng.below(200000)) / 512.0f - 190.0f;
                return static_cast<int32_t>(state::f32_bits(v));
            };
            c.x = f();
            c.y = f();
            c.z = f();
            c.yaw = static_cast<uint16_t>(rng.below(65536));
        } else {
            // Small steps most often, as the buckets expect, and any i16 sometimes.
            const auto d = [&]() -> int32_t {
                return rng.below(4) == 0 ? static_cast<int16_t>(rng.next())
                                         : static_cast<int32_t>(rng.below(200)) - 100;
            };
            c.x = d();
            c.y = d();
            c.z = d();
            c.yaw = rng.below(2) == 0 ? 0 : static_cast<uint16_t>(rng.below(256));
        }
    }
    if (c.mask.contains(ChangeMask::HEALTH)) {
        c.hp = static_cast<uint8_t>(rng.next());
        c.armor = 3;
    }
    if (c.mask.contains(ChangeMask::VEHICLE)) {
        c.vehicle = static_cast<uint16_t>(rng.next());
        c.seat = 2;
    }
    if (c.mask.contains(ChangeMask::ORIENT)) {
        c.orient_q = bits_of(orientation(rng.unit(), rng.unit(), rng.unit(), rng.unit()));
    }
    return c;
}

Frame draw_frame(Rng& rng) {
    Frame f;
    f.tick = static_cast<uint32_t>(rng.next());
    f.keyframe = rng.below(4) == 0;
    f.base_tick = f.keyframe ? 0 : static_cast<uint32_t>(rng.next());
    f.last_seq = static_cast<uint32_t>(rng.next());
    f.input_buffer = static_cast<uint8_t>(rng.next());
    if (rng.below(2) == 0) {
        f.check = static_cast<uint32_t>(rng.next());
    }
    for (uint32_t i = rng.below(4); i > 0; --i) {
        f.removed.push_back(static_cast<uint16_t>(rng.next()));
    }
    uint32_t id = rng.below(2) == 0 ? rng.below(40) : rng.below(65536);
    for (uint32_t n = rng.below(24); n > 0 && id <= 0xffff; --n) {
        f.changes.push_back(draw_change(rng, static_cast<uint16_t>(id)));
        id += 1 + (rng.below(5) == 0 ? rng.below(3000) : rng.below(40));
    }
    for (uint32_t i = rng.below(3); i > 0; --i) {
        protocol::Shot s;
        s.shooter = static_cast<uint16_t>(rng.next());
        s.weapon = static_cast<uint8_t>(rng.next());
        s.yaw = 90.0;
        f.events.emplace_back(s);
    }
    f.first_serial = f.events.empty() ? 0 : static_cast<uint32_t>(rng.next());
    return f;
}

TEST(kind_6_frames_with_orientations_go_through_kind_12_and_back_unchanged) {
    // ACK-15.
    Rng rng;
    size_t oriented = 0;
    size_t smaller = 0;
    Frame f, back;
    for (int i = 0; i < 600; ++i) {
        const Frame drawn = draw_frame(rng);
        Bytes six;
        if (!CHECK(!Reference::encode_frame(drawn, six))) {
            continue;
        }
        CHECK(!Reference::decode_frame_into(six.data(), six.size(), f));
        CHECK(same_frame(f, drawn));
        Bytes twelve;
        CHECK(!PackedReference::encode_frame(f, twelve));
        CHECK(!PackedReference::decode_frame_into(twelve.data(), twelve.size(), back));
        CHECK(same_frame(back, f));
        Bytes six_again;
        CHECK(!Reference::encode_frame(back, six_again));
        CHECK_EQ(six_again, six);
        // The generated codecs read both frames.
        CHECK(protocol::decode_acked(six.data(), six.size()).ok());
        CHECK(protocol::decode_acked_packed(twelve.data(), twelve.size()).ok());
        for (const StagedChange& c : f.changes) {
            oriented += c.mask.contains(ChangeMask::ORIENT) ? 1u : 0u;
        }
        smaller += twelve.size() < six.size() ? 1u : 0u;
    }
    // The draws reached what they are for.
    CHECK(oriented > 1000);
    CHECK(smaller > 300);
}

TEST(changes_out_of_order_have_no_kind_12_form) {
    // ACK-14.
    Rng rng;
    for (const std::array<uint16_t, 2> ids : {std::array<uint16_t, 2>{4, 4}, {9, 2}}) {
        Frame f;
        f.tick = 5;
        f.base_tick = 4;
        for (const uint16_t id : ids) {
            f.changes.push_back(draw_change(rng, id));
        }
        Bytes out;
        const rt::EncodeStatus e = PackedReference::encode_frame(f, out);
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::not_ascending);
            CHECK_EQ(e->path.str(), std::string("body.changes[1].eid"));
        }
    }
    // More than 255 events: over_width at event_count, in both profiles.
    Frame many;
    many.tick = 5;
    many.keyframe = true;
    many.events.assign(256, protocol::Event(protocol::Shot{}));
    Bytes out;
    for (const rt::EncodeStatus& e :
        {Reference::encode_frame(many, out), PackedReference::encode_frame(many, out)}) {
        if (CHECK(e.has_value())) {
            CHECK_EQ(e->kind, rt::ErrorKind::over_width);
            CHECK_EQ(e->path.str(), std::string("event_count"));
        }
    }
}

TEST(codes_past_kind_6_are_over_width_at_the_body_with_their_path) {
    // ACK-15.
    const auto plain = [](uint32_t eid) {
        protocol::PackedChange c;
        c.eid = eid;
        return c;
    };
    const auto step = [&](int32_t dx, int32_t dz, uint16_t yaw) {
        protocol::PackedChange c = plain(1);
        c.mask.set(protocol::PackedMask::POSE);
        c.pose_step = protocol::PackedPoseStep{dx, 0, dz, yaw};
        return c;
    };
    protocol::PackedChange aged = step(0, 0, 0);
    aged.mask.set(protocol::PackedMask::POSE_AGE);
    aged.age = 256;
    const std::pair<protocol::PackedChange, const char*> cases[] = {
        {plain(65536), "body.changes[0].eid"},
        {step(32768, 0, 0), "body.changes[0].pose_step.dx"},
        {step(-32769, 0, 0), "body.changes[0].pose_step.dx"},
        {step(0, 33000, 0), "body.changes[0].pose_step.dz"},
        {step(0, 0, 256), "body.changes[0].pose_step.yaw"},
        {aged, "body.changes[0].age"},
    };
    for (const bool with_check : {false, true}) {
        for (const auto& c : cases) {
            protocol::AckedPacked f;
            f.tick = 9;
            f.base_tick = 8;
            if (with_check) {
                f.flags.set(protocol::AckedFlags::CHECK);
                f.check = 77;
            }
            f.removed = {1};
            f.body.changes = {c.first};
            auto bytes = protocol::to_bytes(f);
            if (!CHECK(bytes.ok())) {
                continue;
            }
            Frame out;
            const auto e = PackedReference::decode_frame_into(
                bytes.value().data(), bytes.value().size(), out);
            if (CHECK(e.has_value())) {
                CHECK_EQ(e->kind, rt::ErrorKind::over_width);
                // 17 header bytes (kind 6's without changed_count), the check, one removed id.
                CHECK_EQ(e->offset, size_t{with_check ? 23u : 19u});
                CHECK(!e->bit.has_value());
                CHECK_EQ(e->path.str(), std::string(c.second));
            }
            // A fault the generated reader finds wins over the code past kind 6: the same
            // frame cut short is truncated.
            const auto cut = PackedReference::decode_frame_into(
                bytes.value().data(), bytes.value().size() - 1, out);
            if (CHECK(cut.has_value())) {
                CHECK_EQ(cut->kind, rt::ErrorKind::truncated);
            }
        }
    }
    // The same frame with an id of kind 6's range decodes.
    protocol::AckedPacked f;
    f.body.changes = {plain(65535)};
    f.flags.set(protocol::AckedFlags::KEYFRAME);
    auto bytes = protocol::to_bytes(f);
    Frame out;
    if (CHECK(bytes.ok())) {
        CHECK(!PackedReference::decode_frame_into(
            bytes.value().data(), bytes.value().size(), out));
        if (CHECK_EQ(out.changes.size(), size_t{1})) {
            CHECK_EQ(out.changes[0].eid, uint16_t{65535});
        }
    }
}

// ---- the staged readers against the generated readers ----

/// The first code of a decoded kind 12 frame that no kind 6 field holds, as the binding reports
/// it: the path after `body.changes[i].`, or nothing.
std::optional<std::pair<size_t, std::string>> past_kind_6(const protocol::AckedPacked& f) {
    for (size_t i = 0; i < f.body.changes.size(); ++i) {
        const protocol::PackedChange& c = f.body.changes[i];
        if (c.eid > 0xffff) {
            return std::make_pair(i, std::string("eid"));
        }
        if (c.age && *c.age > 0xff) {
            return std::make_pair(i, std::string("age"));
        }
        if (c.pose_step) {
            const auto wide = [](int32_t v) { return v < -32768 || v > 32767; };
            if (wide(c.pose_step->dx)) {
                return std::make_pair(i, std::string("pose_step.dx"));
            }
            if (wide(c.pose_step->dy)) {
                return std::make_pair(i, std::string("pose_step.dy"));
            }
            if (wide(c.pose_step->dz)) {
                return std::make_pair(i, std::string("pose_step.dz"));
            }
            if (c.pose_step->yaw > 0xff) {
                return std::make_pair(i, std::string("pose_step.yaw"));
            }
        }
    }
    return std::nullopt;
}

/// What the binding of profile `S` must make of `bytes`: the generated reader's error; else
/// the keyframe rule; else (kind 12) a code past kind 6; else a frame that writes back to
/// `bytes`. Returns whether the binding accepted them.
template <typename S, typename Wire, typename Decode>
bool agrees(const Bytes& bytes, Decode decode_generated) {
    Frame staged;
    const auto got = S::decode_frame_into(bytes.data(), bytes.size(), staged);
    rt::Result<Wire> wire = decode_generated(bytes.data(), bytes.size());
    if (!wire.ok()) {
        if (!CHECK(got.has_value())) {
            return false;
        }
        const rt::DecodeError& want = wire.error();
        CHECK_EQ(got->kind, want.kind);
        CHECK_EQ(got->offset, want.offset);
        CHECK_EQ(got->bit, want.bit);
        CHECK_EQ(got->path.str(), want.path.str());
        return false;
    }
    const Wire& w = wire.value();
    if (w.flags.contains(protocol::AckedFlags::KEYFRAME) && w.base_tick != 0) {
        if (CHECK(got.has_value())) {
            CHECK_EQ(got->kind, rt::ErrorKind::invalid_condition);
            CHECK_EQ(got->path.str(), std::string("base_tick"));
        }
        return false;
    }
    if constexpr (std::is_same_v<Wire, protocol::AckedPacked>) {
        if (const auto past = past_kind_6(w)) {
            if (CHECK(got.has_value())) {
                CHECK_EQ(got->kind, rt::ErrorKind::over_width);
                CHECK_EQ(got->path.str(),
                    "body.changes[" + std::to_string(past->first) + "]." + past->second);
            }
            return false;
        }
    }
    if (!CHECK(!got.has_value())) {
        return false;
    }
    Bytes again;
    CHECK(!S::encode_frame(staged, again));
    CHECK_EQ(again, bytes);
    return true;
}

/// Mutants of `bytes`: flipped and replaced bytes, cut short, a byte appended.
std::vector<Bytes> mutants(const Bytes& bytes, Rng& rng) {
    std::vector<Bytes> out;
    for (int k = 0; k < 12; ++k) {
        Bytes m = bytes;
        switch (rng.below(4)) {
            case 0:
                if (!m.empty()) {
                    m[rng.below(static_cast<uint32_t>(m.size()))] ^=
                        static_cast<uint8_t>(1u << rng.below(8));
                }
                break;
            case 1:
                if (!m.empty()) {
                    m[rng.below(static_cast<uint32_t>(m.size()))] =
                        static_cast<uint8_t>(rng.next());
                }
                break;
            case 2:
                m.resize(rng.below(static_cast<uint32_t>(m.size()) + 1));
                break;
            default:
                m.push_back(static_cast<uint8_t>(rng.next()));
                break;
        }
        out.push_back(std::move(m));
    }
    return out;
}

TEST(the_staged_readers_give_the_generated_readers_verdicts) {
    Rng rng;
    size_t accepted6 = 0;
    size_t refused6 = 0;
    size_t accepted12 = 0;
    size_t refused12 = 0;
    for (int i = 0; i < 400; ++i) {
        const Frame drawn = draw_frame(rng);
        Bytes six;
        Bytes twelve;
        if (!CHECK(!Reference::encode_frame(drawn, six))
            || !CHECK(!PackedReference::encode_frame(drawn, twelve))) {
            continue;
        }
        std::vector<Bytes> sixes = mutants(six, rng);
        sixes.push_back(six);
        for (const Bytes& b : sixes) {
            (agrees<Reference, protocol::Acked>(b, protocol::decode_acked) ? accepted6
                                                                           : refused6) += 1;
        }
        std::vector<Bytes> twelves = mutants(twelve, rng);
        twelves.push_back(twelve);
        for (const Bytes& b : twelves) {
            (agrees<PackedReference, protocol::AckedPacked>(b, protocol::decode_acked_packed)
                    ? accepted12
                    : refused12) += 1;
        }
    }
    // Both verdicts were reached often, for both profiles.
    CHECK(accepted6 > 500);
    CHECK(refused6 > 1500);
    CHECK(accepted12 > 500);
    CHECK(refused12 > 1500);
}

// ---- what a cold decode holds ----

/// The heap bytes a cold decode of `bytes` by `S` holds (a fresh frame decoded into), and
/// whether it decoded.
template <typename S>
size_t cold_decode(const Bytes& bytes, bool& ok) {
    const size_t before = g_allocated_bytes;
    {
        Frame out;
        ok = !S::decode_frame_into(bytes.data(), bytes.size(), out).has_value();
    }
    return g_allocated_bytes - before;
}

// docs/limits.md: every decoder holds at most DECODE_ALLOC_PER_BYTE heap bytes per byte of its
// input. The worst inputs are the smallest changes: kind 12's of an id gap of 1 and an empty
// mask (9 bits each, the least the reader lets a change count claim), kind 6's of an id and a
// mask (4 bytes), each staged in a StagedChange; at most 65,535 (the count is a u16). A frame
// that fails after its changes (a byte appended) holds what was read before the fault.
// WIRE-26.
TEST(a_cold_decode_holds_at_most_decode_alloc_per_byte_of_its_input) {
    double worst = 0.0;
    for (const size_t n : {size_t{1}, size_t{100}, size_t{5000}, size_t{65535}}) {
        Frame f;
        f.keyframe = true;
        for (size_t i = 0; i < n; ++i) {
            StagedChange c;
            c.eid = static_cast<uint16_t>(i);
            f.changes.push_back(c);
        }
        Bytes six;
        Bytes twelve;
        CHECK(!Reference::encode_frame(f, six));
        CHECK(!PackedReference::encode_frame(f, twelve));
        for (const bool trailing : {false, true}) {
            Bytes a = six;
            Bytes b = twelve;
            if (trailing) {
                a.push_back(0);
                b.push_back(0);
            }
            bool ok6 = false;
            bool ok12 = false;
            const size_t held6 = cold_decode<Reference>(a, ok6);
            const size_t held12 = cold_decode<PackedReference>(b, ok12);
            CHECK_EQ(ok6, !trailing);
            CHECK_EQ(ok12, !trailing);
            CHECK(held6 <= DECODE_ALLOC_PER_BYTE * a.size() + DECODE_ALLOC_SLACK);
            CHECK(held12 <= DECODE_ALLOC_PER_BYTE * b.size() + DECODE_ALLOC_SLACK);
            worst = std::max({worst, static_cast<double>(held6) / static_cast<double>(a.size()),
                static_cast<double>(held12) / static_cast<double>(b.size())});
        }
    }
    std::printf("a cold decode, either profile: at most %.1f heap bytes per input byte\n", worst);
    // The bound is met by staging, not by allocating nothing.
    CHECK(worst > 1.0);
}

// ---- nothing allocated once warm ----

template <typename S>
using EncoderOf = acked::AckedEncoder<S, acked::ScheduledInputs<protocol::Input>>;

// 400 ticks of a world of 200 entities that move (50 a tick), turn (a third of them) and fire
// (an event a tick), presented for one client and encoded by the schema `S`, every frame
// acknowledged at once; then a fresh decoder takes 100 frames to warm and the 300 others, which
// must allocate nothing. Returns the allocations of the 300.
template <typename S>
size_t warm_delivery_allocations(size_t& shown, uint32_t& hash, uint32_t& server_hash) {
    reference::Presenter presenter(reference::ViewConfig{});
    EncoderOf<S> encoder(acked::ScheduledInputs<protocol::Input>(acked::InputWindow{4, 64}));
    reference::World world;
    Rng rng;
    for (uint16_t id = 1; id <= 200; ++id) {
        reference::WorldEntity e;
        e.life = 1;
        e.x = static_cast<float>(id % 20) - 10.0f;
        e.y = static_cast<float>(id / 20) - 5.0f;
        e.hp = 100;
        world[id] = e;
    }
    std::vector<Bytes> frames;
    const std::vector<protocol::Input> no_inputs;
    acked::ServerState<EntityState> last;
    for (uint32_t t = 1; t <= 400; ++t) {
        for (size_t k = 0; k < 50; ++k) {
            reference::WorldEntity& e = world[static_cast<uint16_t>(1 + (t * 50 + k) % 200)];
            e.x += 0.01f * rng.unit();
            e.y += 0.01f * rng.unit();
            e.yaw += 1.0f;
            if (k % 3 == 0) {
                e.orient = std::array<float, 4>{rng.unit(), rng.unit(), rng.unit(), 1.0f};
            }
        }
        protocol::Shot s;
        s.shooter = 1;
        s.weapon = static_cast<uint8_t>(t);
        s.yaw = 0.0;
        last = presenter.present(t, world);
        auto sent = encoder.encode(t, last, {protocol::Event(s)});
        if (!CHECK(sent.ok())) {
            return 0;
        }
        frames.push_back(std::move(sent.value().bytes));
        encoder.on_ack(t, t, false, 0, no_inputs, [](const protocol::Input& i) { return i.tick; });
    }
    acked::AckedDecoder<S> decoder;
    shown = 0;
    for (size_t i = 0; i < 100; ++i) {
        shown += decoder.deliver(frames[i]).kind == Kind::shown ? 1u : 0u;
    }
    const size_t before = g_allocations;
    for (size_t i = 100; i < frames.size(); ++i) {
        shown += decoder.deliver(frames[i]).kind == Kind::shown ? 1u : 0u;
    }
    const size_t allocations = g_allocations - before;
    hash = decoder.state_hash();
    server_hash = acked::server_check<S>(last);
    return allocations;
}

TEST(a_warm_delivery_of_kind_6_with_orientations_allocates_nothing) {
    size_t shown = 0;
    uint32_t hash = 0;
    uint32_t server = 0;
    CHECK_EQ(warm_delivery_allocations<Reference>(shown, hash, server), size_t{0});
    CHECK_EQ(shown, size_t{400});
    CHECK_EQ(hash, server);
}

TEST(a_warm_delivery_of_kind_12_allocates_nothing) {
    size_t shown = 0;
    uint32_t hash = 0;
    uint32_t server = 0;
    CHECK_EQ(warm_delivery_allocations<PackedReference>(shown, hash, server), size_t{0});
    CHECK_EQ(shown, size_t{400});
    CHECK_EQ(hash, server);
}

// ---- the session halves over the binding ----

TEST(the_halves_carry_the_reference_stream_and_its_acks) {
    acked::AckedServerHalf<Reference, reference::Presenter> server(
        reference::Presenter(reference::ViewConfig{}), acked::InputWindow{4, 64});
    acked::AckedClientHalf<Reference> client(16);
    reference::World world;
    reference::WorldEntity e;
    e.life = 1;
    e.hp = 7;
    world[1] = e;
    world[2] = e;
    size_t shown = 0;
    for (uint64_t t = 1; t <= 40; ++t) {
        world[2].x = static_cast<float>(t) * 0.25f;
        CHECK(server.handle_tick(session::Now{t, t * 16}, world, {}).ok());
        while (auto frame = server.poll_transmit()) {
            CHECK_EQ(frame->frame, std::string("acked"));
            auto d = client.handle_frame(session::Now{0, t * 16}, frame->frame, frame->bytes);
            if (CHECK(d.ok()) && d.value().kind == Kind::shown) {
                shown += 1;
            }
        }
        protocol::Input input;
        input.tick = static_cast<uint32_t>(t + 2);
        CHECK(client.handle_tick(session::Now{t, t * 16}, input).ok());
        while (auto ack = client.poll_transmit()) {
            CHECK_EQ(ack->frame, std::string("ack"));
            auto r = server.handle_frame(session::Now{t, t * 16}, ack->frame, ack->bytes.data(),
                ack->bytes.size());
            if (CHECK(r.ok())) {
                CHECK_EQ(r.value().base, std::optional<uint32_t>(static_cast<uint32_t>(t)));
                CHECK_EQ(r.value().last_seq, static_cast<uint32_t>(t));
            }
        }
        while (server.machine().inputs_mut().execute_due(t)) {
        }
    }
    CHECK_EQ(shown, size_t{40});
    CHECK_EQ(client.shown().size(), size_t{2});
    // A frame of another name is refused; bytes that are not an ack are a decode error.
    auto wrong = client.handle_frame(session::Now{}, "acked_packed", Bytes{6});
    CHECK(!wrong.ok());
    auto bad = server.handle_frame(session::Now{}, "ack", Bytes{9}.data(), 1);
    if (CHECK(!bad.ok())) {
        CHECK(bad.error().kind == session::SessionError::Kind::decode);
    }
}

// The machine schemas `ackwire gen` writes for `schema ReferenceBaseline`, `ReferenceDatagram`
// and `ReferenceDelta`: a snapshot's gap is narrow below 128 and wide from 128 (NB-4), with the
// mask of the components present, and comes back with them; an update's length is the bytes it
// adds to a datagram (DG-7); the names are the codec's frames.

TEST(the_baseline_schema_writes_a_gap_narrow_below_128_and_wide_from_it) {
    using S = protocol::ReferenceBaseline;
    protocol::Vitality vitality;
    vitality.hp = 9;
    protocol::Transform transform;
    transform.z = 3.0;
    protocol::Team team;
    team.team = 2;
    const S::Value health(std::in_place_index<2>, vitality);
    const S::Value moved(std::in_place_index<0>, transform);
    const S::Value side(std::in_place_index<3>, team);
    const S::Entry narrow = S::make_entry(127, 1, {nullptr, nullptr, &health, nullptr});
    const S::Entry wide = S::make_entry(128, 2, {&moved, nullptr, nullptr, &side});
    CHECK(!narrow.wide);
    CHECK(narrow.gap == std::optional<uint8_t>(127));
    CHECK(narrow.mask.contains(protocol::ComponentMask::HEALTH));
    CHECK(!narrow.mask.contains(protocol::ComponentMask::TRANSFORM));
    CHECK(wide.wide);
    CHECK(wide.wide_gap == std::optional<uint32_t>(128));
    CHECK(wide.mask.contains(protocol::ComponentMask::TRANSFORM));
    CHECK(wide.mask.contains(protocol::ComponentMask::TEAM));

    S::Snapshot snapshot;
    snapshot.sequence = 513;
    snapshot.body.entries = {narrow, wide};
    const auto bytes = S::to_bytes(snapshot);
    if (!CHECK(bytes.ok())) {
        return;
    }
    const auto back = S::decode_snapshot(bytes.value().data(), bytes.value().size());
    if (!CHECK(back.ok()) || !CHECK_EQ(back.value().body.entries.size(), size_t{2})) {
        return;
    }
    const S::Entry& first = back.value().body.entries[0];
    const S::Entry& second = back.value().body.entries[1];
    CHECK_EQ(S::entry_gap(first), uint32_t{127});
    CHECK_EQ(S::entry_gap(second), uint32_t{128});
    const auto values = S::entry_values(second);
    CHECK(values[0].has_value() && values[0]->index() == 0);
    CHECK(!values[1].has_value() && !values[2].has_value());
    CHECK(values[3].has_value() && std::get<3>(*values[3]).team == 2);
    CHECK(S::entry_values(first)[2] == std::optional<S::Value>(health));
    // 24 + 24 + 20 + 9 bits.
    CHECK_EQ(S::bit_len(moved), size_t{77});
    const auto bits = S::bits(moved);
    CHECK(bits.ok() && bits.value().size() == 10);
}

TEST(the_datagram_schema_counts_an_update_as_the_bytes_it_adds) {
    using S = protocol::ReferenceDatagram;
    S::Update first;
    first.id = 7;
    first.mask.set(S::MASK_X);
    first.x = -5;
    S::Update second;
    second.id = 300;
    second.mask.set(S::MASK_Y);
    second.y = 1000;
    S::Datagram one;
    one.precision = 0.5f;
    one.parts = 1;
    one.updates = {first};
    S::Datagram two = one;
    two.updates.push_back(second);
    const auto a = S::to_bytes(one);
    const auto b = S::to_bytes(two);
    if (!CHECK(a.ok() && b.ok())) {
        return;
    }
    std::optional<uint64_t> prev = first.id;
    CHECK_EQ(b.value().size() - a.value().size(), S::encoded_len_after(second, prev));
    CHECK(prev == std::optional<uint64_t>(300));
    CHECK(!S::check_update(second).has_value());
    S::Update lying = second;
    lying.y.reset();
    CHECK(S::check_update(lying).has_value());
    CHECK(S::decode_datagram(b.value().data(), b.value().size()).value() == two);
    CHECK_EQ(std::string(S::FULL_FRAME), std::string("full_frame"));
}

TEST(the_delta_schema_passes_a_plan_through_the_codec) {
    using S = protocol::ReferenceDelta;
    S::DeltaPlan plan;
    plan.flags.set(S::PLAN_FULL_BASELINE);
    plan.flags.set(S::PLAN_BASELINE);
    plan.sequence = 9;
    plan.baseline_seq = 4;
    plan.entered = {1, 5};
    plan.left = {2};
    const auto bytes = S::to_bytes(plan);
    if (!CHECK(bytes.ok())) {
        return;
    }
    CHECK(S::decode_delta_plan(bytes.value().data(), bytes.value().size()).value() == plan);
    CHECK_EQ(std::string(S::DELTA_ACK), std::string("delta_ack"));
}

// The reference state's groups as datagram v2 components (DG-6), generated from `state Reference`
// (`reference::ReferenceComponent`), as codec/tests/typed_components.rs holds the Rust ones: a
// server's entities travel through a Subscription and a ReplicaTable, every frame through its
// bytes and a third of the datagrams lost until tick 30; the client's replica, decoded back into
// typed components, then equals the server's entities. A payload that does not decode to exactly
// one value is refused where it fails; a removal and a type the state does not declare are
// skipped.

using Typed = reference::ReferenceComponent;
using Dg = protocol::ReferenceDatagram;

/// The typed components of entity `id` at `tick`: a pose every entity has, health that changes,
/// a vehicle for even ids and an orientation for ids divisible by three.
std::vector<Typed> typed_entity(uint64_t id, uint64_t tick) {
    protocol::PoseFull pose;
    pose.x = static_cast<float>(tick) * 0.5f;
    pose.y = static_cast<float>(id);
    pose.z = -2.0f;
    // Whole steps of 360/65536 degrees, which the quantization keeps exactly.
    pose.yaw = static_cast<double>(id * 1000 + tick) * (360.0 / 65536.0);
    protocol::Health health;
    health.hp = static_cast<uint8_t>(tick >= 100 ? 0 : 100 - tick);
    health.armor = static_cast<uint8_t>(id);
    std::vector<Typed> out = {Typed::pose(pose), Typed::health(health)};
    if (id % 2 == 0) {
        protocol::Vehicle v;
        v.vehicle = static_cast<uint16_t>(id + 1);
        v.seat = static_cast<uint8_t>(tick % 4);
        out.push_back(Typed::vehicle(v));
    }
    if (id % 3 == 0) {
        protocol::Orientation o;
        o.q.largest = static_cast<uint8_t>(tick % 4);
        o.q.rest = {-5, static_cast<int16_t>(id), 7};
        out.push_back(Typed::orient(o));
    }
    return out;
}

/// The components as the subscription takes them: (type, bytes).
std::vector<std::pair<uint8_t, Bytes>> encoded(const std::vector<Typed>& components) {
    std::vector<std::pair<uint8_t, Bytes>> out;
    for (const Typed& c : components) {
        auto change = c.to_component<protocol::Component>();
        if (CHECK(change.ok() && change.value().data.has_value())) {
            out.emplace_back(change.value().type, *change.value().data);
        }
    }
    return out;
}

/// A replica's components decoded back, by type.
std::vector<Typed> decoded(const std::map<uint8_t, Bytes>& components) {
    std::vector<Typed> out;
    for (const auto& [type, data] : components) {
        protocol::Component c;
        c.type = type;
        c.data = data;
        auto back = Typed::from_component(c);
        if (CHECK(back.ok()) && back.value()) {
            out.push_back(*back.value());
        }
    }
    return out;
}

/// A frame through its bytes, as the other side reads it.
template <typename F, typename D>
F through_bytes(const F& frame, D decode) {
    const auto bytes = Dg::to_bytes(frame);
    CHECK(bytes.ok());
    auto back = decode(bytes.value().data(), bytes.value().size());
    CHECK(back.ok());
    return std::move(back).value();
}

TEST(a_replica_of_typed_components_equals_the_servers_entities) {
    datagram::Subscription<Dg> server{datagram::SubscriptionConfig{}};
    datagram::ReplicaTable<Dg> client;
    const uint64_t ids[] = {0, 1, 2, 3, 4, 5};
    uint32_t sent = 0;
    uint32_t lost = 0;
    for (uint64_t tick = 1; tick <= 40; ++tick) {
        std::vector<datagram::WorldOp> ops;
        for (const uint64_t id : ids) {
            auto components = encoded(typed_entity(id, tick));
            datagram::WorldOp op;
            op.id = id;
            if (tick == 1) {
                op.kind = datagram::WorldOp::Kind::spawn;
                op.position[0] = static_cast<double>(id);
                op.components = std::move(components);
                ops.push_back(std::move(op));
                continue;
            }
            op.kind = datagram::WorldOp::Kind::move;
            op.position[0] = static_cast<double>(id);
            op.position[1] = static_cast<double>(tick) * 0.25;
            ops.push_back(op);
            for (auto& [type, data] : components) {
                datagram::WorldOp set;
                set.kind = datagram::WorldOp::Kind::set_component;
                set.id = id;
                set.type = type;
                set.data = std::move(data);
                ops.push_back(std::move(set));
            }
        }
        auto out = server.tick(tick, tick, ops);
        if (!CHECK(out.ok())) {
            return;
        }
        for (const auto& [name, bytes] : out.value().stream) {
            const std::string frame = name;
            if (frame == Dg::SPAWN) {
                auto f = Dg::decode_spawn(bytes.data(), bytes.size());
                CHECK(f.ok() && client.apply_spawn(f.value()).refused == 0);
            } else if (frame == Dg::DESPAWN) {
                auto f = Dg::decode_despawn(bytes.data(), bytes.size());
                CHECK(f.ok() && client.apply_despawn(f.value()).refused == 0);
            } else {
                auto f = Dg::decode_full_frame(bytes.data(), bytes.size());
                CHECK(frame == Dg::FULL_FRAME && f.ok() &&
                    client.apply_full_frame(f.value()).refused == 0);
            }
        }
        for (const Dg::Datagram& d : out.value().datagrams) {
            ++sent;
            if (tick < 30 && sent % 3 == 0) {
                ++lost;
                continue;
            }
            client.receive(through_bytes(d, Dg::decode_datagram));
        }
        for (const Dg::DatagramAck& ack : client.take_acks()) {
            server.on_ack(through_bytes(ack, Dg::decode_datagram_ack));
        }
    }
    CHECK(lost > 5);
    // The state check: every entity the client holds decodes to the server's, group by group.
    CHECK_EQ(client.entities().size(), std::size(ids));
    for (const uint64_t id : ids) {
        auto replica = client.entities().find(id);
        if (!CHECK(replica != client.entities().end())) {
            continue;
        }
        const std::vector<Typed> back = decoded(replica->second.components);
        CHECK_EQ(back.size(), typed_entity(id, 40).size());
        CHECK(back == typed_entity(id, 40));
    }
}

TEST(a_component_payload_that_does_not_decode_exactly_is_refused_where_it_fails) {
    protocol::Health hp;
    hp.hp = 9;
    hp.armor = 1;
    auto health = Typed::health(hp).to_component<protocol::Component>();
    if (!CHECK(health.ok() && health.value().data.has_value())) {
        return;
    }
    CHECK_EQ(health.value().type, uint8_t{1});
    CHECK_EQ(*health.value().data, (Bytes{9, 1}));
    auto component = [](uint8_t type, std::optional<Bytes> data) {
        protocol::Component c;
        c.type = type;
        c.data = std::move(data);
        return c;
    };
    Bytes longer = *health.value().data;
    longer.push_back(0);
    auto e = Typed::from_component(component(1, longer));
    if (CHECK(!e.ok())) {
        CHECK(e.error().kind == rt::ErrorKind::trailing_bytes);
        CHECK_EQ(e.error().offset, size_t{2});
        CHECK_EQ(e.error().path_string(), std::string("health"));
    }
    // A pose (packed: its yaw's bits and the padding) cut short ends where its bytes do.
    e = Typed::from_component(component(0, Bytes{1, 2}));
    if (CHECK(!e.ok())) {
        CHECK(e.error().kind == rt::ErrorKind::truncated);
        CHECK_EQ(e.error().offset, size_t{2});
        CHECK_EQ(e.error().path_string().substr(0, 5), std::string("pose."));
    }
    // A vehicle one byte short.
    e = Typed::from_component(component(2, Bytes{7, 0}));
    if (CHECK(!e.ok())) {
        CHECK(e.error().kind == rt::ErrorKind::truncated);
        CHECK_EQ(e.error().path_string(), std::string("vehicle.seat"));
    }
    // DG-6: a type the state does not declare is skipped, as is a removal.
    auto unknown = Typed::from_component(component(9, Bytes{1, 2, 3}));
    CHECK(unknown.ok() && !unknown.value().has_value());
    auto removal = Typed::from_component(component(1, std::nullopt));
    CHECK(removal.ok() && !removal.value().has_value());
    auto back = Typed::from_component(health.value());
    CHECK(back.ok() && back.value() == std::optional<Typed>(Typed::health(hp)));
    // The other groups' full forms, each back to itself with its own type.
    for (const Typed& t : typed_entity(6, 7)) {
        auto c = t.to_component<protocol::Component>();
        if (!CHECK(c.ok())) {
            continue;
        }
        CHECK_EQ(c.value().type, t.component_type());
        auto again = Typed::from_component(c.value());
        CHECK(again.ok() && again.value() == std::optional<Typed>(t));
    }
    // A quaternion the writer refuses (a component past its range) is refused under its field.
    protocol::Orientation bent;
    bent.q.rest = {300, 0, 0};
    auto refused = Typed::orient(bent).to_component<protocol::Component>();
    if (CHECK(!refused.ok())) {
        CHECK(refused.error().kind == rt::ErrorKind::over_width);
    }
}

}  // namespace

int main() { return check::run_all(); }
