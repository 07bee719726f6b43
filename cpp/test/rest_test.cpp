// Tests of the runtime's datagram, baseline and delta machines and their digests
// (include/ackwire_{digest,datagram,baseline,delta}.hpp), seeing the runtime alone: the digests
// against the Rust codec's doc values (codec/src/digest.rs, computed by hand from DELTA-4 and
// DELTA-5), the machines over small test schemas, each limit a hostile server can push against
// (ReplicaLimits, MirrorLimits, BaselineLimits) with the behaviour past it. The reference
// protocol's bytes are checked by the stream vectors through the testee. Run by ../test.sh.

#include "ackwire_baseline.hpp"
#include "ackwire_datagram.hpp"
#include "ackwire_delta.hpp"
#include "ackwire_digest.hpp"

#include "check.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

using Bytes = std::vector<uint8_t>;
namespace dg = ackwire::datagram;
namespace dl = ackwire::delta;
namespace bl = ackwire::baseline;
namespace digest = ackwire::digest;
namespace rt = ackwire::rt;

// ---- digests ----

TEST(mix64_is_the_splitmix64_finalizer_after_the_golden_gamma) {
    // DELTA-4.
    CHECK_EQ(digest::mix64(0), uint64_t{0xE220A8397B1DCDAFu});
    CHECK_EQ(digest::mix64(1), uint64_t{0x910A2DEC89025CC1u});
    CHECK_EQ(digest::mix64(2), uint64_t{0x975835DE1C9756CEu});
    CHECK_EQ(digest::mix64(5), uint64_t{0x63033B0CA389C35Au});
    CHECK_EQ(digest::mix64(digest::slot_key(7, 3)), uint64_t{0xA924D7EBAD36B5ACu});
}

TEST(slot_key_is_index_shifted_16_or_generation) {
    // DELTA-3.
    CHECK_EQ(digest::slot_key(7, 3), uint64_t{(7u << 16) | 3u});
    CHECK_EQ(digest::slot_key(0xFFFFFFFFu, 0xFFFFu), uint64_t{0xFFFFFFFFFFFFu});
    const digest::SlotKey k = digest::SlotKey::decode(digest::slot_key(123456, 789));
    CHECK_EQ(k.index, uint32_t{123456});
    CHECK_EQ(k.generation, uint16_t{789});
    const digest::SlotKey max = digest::SlotKey::decode(UINT64_MAX);
    CHECK_EQ(max.index, uint32_t{0xFFFFFFFFu});
    CHECK_EQ(max.generation, uint16_t{0xFFFFu});
}

TEST(set_digest_matches_the_rust_doc_values) {
    // DELTA-5.
    CHECK_EQ(digest::SetDigest().digest(), uint64_t{0xE220A8397B1DCDAFu});
    CHECK_EQ(digest::SetDigest::from_keys(std::vector<uint64_t>{5}).digest(),
        uint64_t{0xF20916E02A8B9F9Bu});
    // {1, 2}: the sum overflows u64.
    CHECK_EQ(digest::SetDigest::from_keys(std::vector<uint64_t>{1, 2}).digest(),
        uint64_t{0xBF3A5614B90EE541u});
    const auto a = digest::SetDigest::from_keys(std::vector<uint64_t>{1, 2, 3, 99, 1ull << 40});
    const auto b = digest::SetDigest::from_keys(std::vector<uint64_t>{1ull << 40, 99, 3, 2, 1});
    CHECK(a == b);
    auto c = digest::SetDigest::from_keys(std::vector<uint64_t>{10, 20, 30});
    const uint64_t before = c.digest();
    c.insert(40);
    CHECK(c.digest() != before);
    c.remove(40);
    CHECK_EQ(c.digest(), before);
    // The count wraps instead of failing.
    digest::SetDigest w;
    w.remove(9);
    CHECK_EQ(w.len(), uint32_t{0xFFFFFFFFu});
    w.insert(9);
    CHECK(w == digest::SetDigest());
}

TEST(an_ack_window_keeps_64_behind_the_newest) {
    // DELTA-6, DELTA-7.
    digest::AckWindow w;
    CHECK(!w.encode().has_value());
    CHECK(w.observe(10));
    CHECK(!w.observe(10));
    CHECK(w.observe(12));
    CHECK(w.contains(10) && !w.contains(11) && w.contains(12));
    CHECK_EQ(w.mask(), uint64_t{0b10});
    CHECK(w.observe(11));
    CHECK_EQ(w.contiguous_base(10), std::optional<uint64_t>(12));
    // A shift of exactly 64 keeps the old newest in the last bit; one more drops it.
    CHECK(w.observe(12 + 64));
    CHECK(w.contains(12) && !w.contains(11));
    CHECK(w.observe(12 + 64 + 65));
    CHECK_EQ(w.mask(), uint64_t{0});
    // Far behind, and at the top of the range: no shift past 63, no wrap.
    CHECK(!w.observe(0));
    digest::AckWindow top = digest::AckWindow::from_encoded(UINT64_MAX, UINT64_MAX);
    CHECK(top.contains(UINT64_MAX - 64) && !top.contains(UINT64_MAX - 65));
    CHECK(!top.contains(0));
    CHECK_EQ(top.contiguous_base(UINT64_MAX - 3), std::optional<uint64_t>(UINT64_MAX));
}

TEST(agreement_says_both_digests_when_they_differ) {
    // DELTA-15.
    const auto a = digest::Agreement::compare(1, 2);
    CHECK(a.is_disagreement());
    CHECK_EQ(a.expected, uint64_t{1});
    CHECK_EQ(a.reported, uint64_t{2});
    CHECK(digest::Agreement::compare(7, 7).kind == digest::Agreement::Kind::agrees);
}

// ---- datagram v2 over a test schema ----

// A schema whose frames carry what the machines read, and whose "encoding" is a fixed cost per
// update: the machines' rules, not the reference protocol's bytes, are under test here.
struct TestDatagram {
    struct Mask {
        uint8_t bits = 0;
        void set(unsigned bit, bool on = true) {
            bits = static_cast<uint8_t>(on ? (bits | (1u << bit)) : (bits & ~(1u << bit)));
        }
    };
    struct Component {
        uint8_t type = 0;
        std::optional<Bytes> data;
    };
    struct Update {
        uint64_t id = 0;
        uint16_t spawn_tag = 0;
        Mask mask;
        std::optional<int64_t> x, y, z;
        std::optional<std::vector<Component>> components;
    };
    struct Datagram {
        uint64_t frame = 0, tick = 0, input_ack = 0, stream_tick = 0;
        float precision = 0.0f;
        uint32_t parts = 0;
        std::vector<Update> updates;
    };
    struct Spawn {
        uint64_t tick = 0, id = 0;
        float precision = 0.0f;
        int64_t x = 0, y = 0, z = 0;
        std::vector<Component> components;
    };
    struct Despawn {
        uint64_t tick = 0, id = 0;
    };
    struct FullEntity {
        uint64_t id = 0;
        int64_t x = 0, y = 0, z = 0;
        std::vector<Component> components;
    };
    struct FullFrame {
        uint64_t tick = 0;
        float precision = 0.0f;
        std::vector<FullEntity> entities;
    };
    struct DatagramAck {
        uint64_t frame = 0, stream_tick = 0;
    };
    static constexpr size_t MAX_HEADER_LEN = 10;
    static constexpr unsigned MASK_X = 0, MASK_Y = 1, MASK_Z = 2, MASK_COMPONENTS = 3;
    static constexpr const char* DATAGRAM = "datagram";
    static constexpr const char* SPAWN = "spawn";
    static constexpr const char* DESPAWN = "despawn";
    static constexpr const char* FULL_FRAME = "full_frame";
    static constexpr const char* DATAGRAM_ACK = "datagram_ack";
    static size_t encoded_len_after(const Update& u, std::optional<uint64_t>& prev) {
        prev = u.id;
        return 10;
    }
    static rt::EncodeStatus check_update(const Update&) { return std::nullopt; }
    template <typename F>
    static rt::Result<Bytes, rt::EncodeError> to_bytes(const F&) {
        return Bytes{1};
    }
};

using Table = dg::ReplicaTable<TestDatagram>;

static TestDatagram::Datagram datagram(uint64_t frame, uint64_t tick, uint32_t parts,
    std::vector<TestDatagram::Update> updates = {}, uint64_t input_ack = 0) {
    TestDatagram::Datagram d;
    d.frame = frame;
    d.tick = tick;
    d.parts = parts;
    d.input_ack = input_ack;
    d.updates = std::move(updates);
    return d;
}

static TestDatagram::Update moved(uint64_t id, uint64_t spawn_tick, int64_t x) {
    TestDatagram::Update u;
    u.id = id;
    u.spawn_tag = dg::spawn_tag(spawn_tick);
    u.mask.set(0);
    u.x = x;
    return u;
}

static TestDatagram::Spawn spawn(uint64_t tick, uint64_t id, size_t component_len = 0) {
    TestDatagram::Spawn s;
    s.tick = tick;
    s.id = id;
    if (component_len > 0) {
        s.components.push_back(TestDatagram::Component{1, Bytes(component_len, 7)});
    }
    return s;
}

TEST(quantize_rounds_halves_away_from_zero_and_saturates) {
    // DG-5.
    CHECK_EQ(dg::quantize(0.25, 0.5f), int64_t{1});
    CHECK_EQ(dg::quantize(-0.25, 0.5f), int64_t{-1});
    CHECK_EQ(dg::quantize(-2.5, 1.0f), int64_t{-3});
    CHECK_EQ(dg::quantize(1e300, 1.0f), INT64_MAX);
    CHECK_EQ(dg::quantize(-1e300, 1.0f), INT64_MIN);
    CHECK_EQ(dg::quantize(1.0, 0.0f), int64_t{0});
    CHECK_EQ(dg::quantize(std::numeric_limits<double>::quiet_NaN(), 1.0f), int64_t{0});
}

TEST(a_tick_is_applied_and_acked_only_when_whole_and_only_then_the_input_ack_moves) {
    // DG-21, DG-22.
    Table t;
    t.apply_spawn(spawn(1, 5));
    auto s = t.receive(datagram(1, 2, 2, {moved(5, 1, 10)}, 4));
    CHECK(s.held);
    CHECK_EQ(t.take_acks().size(), size_t{0});
    CHECK_EQ(t.input_ack(), uint64_t{0});
    CHECK_EQ(t.entities().at(5).position[0], int64_t{0});
    s = t.receive(datagram(2, 2, 2, {}, 4));
    CHECK_EQ(s.released, uint32_t{2});
    CHECK_EQ(t.take_acks().size(), size_t{2});
    CHECK_EQ(t.input_ack(), uint64_t{4});
    CHECK_EQ(t.entities().at(5).position[0], int64_t{10});
}

TEST(a_stale_or_mistagged_update_changes_nothing) {
    // DG-18, DG-19.
    Table t;
    t.apply_spawn(spawn(1, 5));
    t.receive(datagram(9, 3, 1, {moved(5, 1, 90)}));
    auto s = t.receive(datagram(8, 2, 1, {moved(5, 1, 80)}));
    CHECK_EQ(s.skipped_stale, uint32_t{1});
    s = t.receive(datagram(10, 4, 1, {moved(5, 2, 100)}));
    CHECK_EQ(s.skipped_spawn_tag, uint32_t{1});
    CHECK_EQ(t.entities().at(5).position[0], int64_t{90});
    // A stream frame from before the last one applied is refused.
    CHECK_EQ(t.apply_despawn(TestDatagram::Despawn{0, 5}).refused, uint32_t{1});
    CHECK_EQ(t.entities().size(), size_t{1});
}

TEST(a_hostile_server_cannot_grow_the_held_datagrams_past_max_held) {
    // DG-23.
    dg::ReplicaLimits limits;
    limits.max_held = 8;
    Table t(limits);
    uint32_t given_up = 0;
    // Every tick claims two parts and sends one: none is ever whole.
    for (uint64_t i = 1; i <= 100; ++i) {
        given_up += t.receive(datagram(i, i, 2)).given_up;
        CHECK(t.held() <= 8);
    }
    CHECK_EQ(given_up, uint32_t{92});
    CHECK_EQ(t.take_acks().size(), size_t{0});
}

TEST(held_datagrams_stay_within_max_held_bytes_with_the_rust_tables_figures) {
    // Ten updates each carrying a 100-byte component cost 256 + 10 x (96 + 100 + 64) = 2,856;
    // under 10,000, three ticks are held and each further one gives up the oldest.
    dg::ReplicaLimits limits;
    limits.max_held_bytes = 10000;
    Table t(limits);
    const auto heavy = [](uint64_t tick) {
        std::vector<TestDatagram::Update> updates;
        for (uint64_t id = 0; id < 10; ++id) {
            auto u = moved(id, 1, 0);
            u.mask.set(3);
            u.components = std::vector<TestDatagram::Component>{{1, Bytes(100, 0)}};
            updates.push_back(u);
        }
        // Two parts, and only one sent: never whole.
        return datagram(tick, tick, 2, updates);
    };
    uint32_t given_up = 0;
    for (uint64_t tick = 1; tick <= 20; ++tick) {
        given_up += t.receive(heavy(tick)).given_up;
        CHECK(t.held_bytes() <= size_t{10000});
    }
    CHECK_EQ(t.held(), size_t{3});
    CHECK_EQ(t.held_bytes(), size_t{8568});
    CHECK_EQ(given_up, uint32_t{17});
}

TEST(entities_and_component_bytes_past_the_limits_are_refused) {
    // DG-23.
    dg::ReplicaLimits limits;
    limits.max_entities = 2;
    limits.max_component_bytes = 200;
    Table t(limits);
    CHECK_EQ(t.apply_spawn(spawn(1, 1)).refused, uint32_t{0});
    CHECK_EQ(t.apply_spawn(spawn(2, 2)).refused, uint32_t{0});
    CHECK_EQ(t.apply_spawn(spawn(3, 3)).refused, uint32_t{1});
    CHECK_EQ(t.entities().size(), size_t{2});
    // 100 bytes + 64 overhead fits; a second such component would not.
    CHECK_EQ(t.apply_spawn(spawn(4, 1, 100)).refused, uint32_t{0});
    CHECK_EQ(t.component_bytes(), size_t{164});
    auto big = moved(2, 2, 1);
    big.mask.set(3);
    big.components = std::vector<TestDatagram::Component>{{9, Bytes(100, 1)}};
    const auto s = t.receive(datagram(1, 5, 1, {big}));
    CHECK_EQ(s.skipped_over_bytes, uint32_t{1});
    // Refused whole, position too, and its datagram not acked so the server says it again.
    CHECK_EQ(t.entities().at(2).position[0], int64_t{0});
    CHECK_EQ(t.take_acks().size(), size_t{0});
}

TEST(the_last_tick_of_the_wire_is_a_tick_like_any_other) {
    // GEN-6.
    Table t;
    t.receive(datagram(1, UINT64_MAX, 1));
    CHECK_EQ(t.held(), size_t{0});
    CHECK_EQ(t.take_acks().size(), size_t{1});
}

TEST(a_tick_splits_under_the_limit_and_an_update_too_large_goes_alone) {
    // DG-13, DG-11.
    dg::DatagramHeader h;
    h.frame = 7;
    std::vector<TestDatagram::Update> ups;
    for (uint64_t id = 1; id <= 10; ++id) {
        ups.push_back(moved(id, 0, 1));
    }
    // 10 header + 3 updates of 10 = 40 bytes a datagram.
    auto parts = dg::split_tick<TestDatagram>(h, ups, 40);
    CHECK(parts.ok());
    CHECK_EQ(parts.value().size(), size_t{4});
    CHECK_EQ(parts.value()[3].frame, uint64_t{10});
    CHECK_EQ(parts.value()[0].parts, uint32_t{4});
    // Under the header alone every update goes alone.
    CHECK_EQ(dg::split_tick<TestDatagram>(h, ups, 5).value().size(), size_t{10});
    CHECK_EQ(dg::split_tick<TestDatagram>(h, {}, 40).value().size(), size_t{1});
    h.frame = UINT64_MAX;
    auto wrapped = dg::split_tick<TestDatagram>(h, ups, 40);
    CHECK(!wrapped.ok() && wrapped.error().kind == dg::BuildError::Kind::out_of_numbers);
    std::swap(ups[0], ups[1]);
    h.frame = 1;
    auto unordered = dg::split_tick<TestDatagram>(h, ups, 40);
    CHECK(!unordered.ok() && unordered.error().kind == dg::BuildError::Kind::not_ascending);
}

TEST(the_server_resends_a_change_until_an_ack_covers_it) {
    // DG-14, DG-15.
    dg::Subscription<TestDatagram> sub(dg::SubscriptionConfig{});
    dg::WorldOp s;
    s.kind = dg::WorldOp::Kind::spawn;
    s.id = 1;
    CHECK_EQ(sub.tick(1, 0, {s}).value().stream.size(), size_t{1});
    dg::WorldOp m;
    m.kind = dg::WorldOp::Kind::move;
    m.id = 1;
    m.position[0] = 1.0;
    const auto t2 = sub.tick(2, 0, {m}).value();
    CHECK_EQ(t2.datagrams.at(0).updates.size(), size_t{1});
    CHECK_EQ(sub.tick(3, 0, {}).value().datagrams.at(0).updates.size(), size_t{1});
    // An ack before the spawn's stream frame does not cover it; one at it does.
    CHECK_EQ(sub.on_ack(TestDatagram::DatagramAck{t2.datagrams[0].frame, 0}).covered, uint32_t{0});
    CHECK_EQ(sub.on_ack(TestDatagram::DatagramAck{t2.datagrams[0].frame, 1}).covered, uint32_t{1});
    CHECK_EQ(sub.tick(4, 0, {}).value().datagrams.at(0).updates.size(), size_t{0});
    // An ack naming a stream tick never sent is not from our client.
    CHECK(!sub.on_ack(TestDatagram::DatagramAck{1, 99}).known);
    // Ticks must ascend, and an unknown entity is the world's error.
    CHECK(!sub.tick(4, 0, {}).ok());
    CHECK(sub.tick(5, 0, {m}).ok());
    m.id = 2;
    CHECK(sub.tick(6, 0, {m}).error().kind == ackwire::session::SessionError::Kind::world);
}

// ---- delta over a test schema ----

struct TestDelta {
    struct Flags {
        uint8_t bits = 0;
        void set(unsigned bit, bool on = true) {
            bits = static_cast<uint8_t>(on ? (bits | (1u << bit)) : (bits & ~(1u << bit)));
        }
        bool contains(unsigned bit) const { return ((bits >> bit) & 1u) != 0; }
    };
    struct DeltaPlan {
        Flags flags;
        uint64_t sequence = 0;
        std::optional<uint64_t> baseline_seq;
        std::vector<uint64_t> entered;
        std::vector<uint64_t> left;
    };
    struct DeltaAck {
        uint64_t newest = 0, mask = 0, digest = 0;
    };
    static constexpr unsigned PLAN_FULL_BASELINE = 0, PLAN_BASELINE = 1;
};

static TestDelta::DeltaPlan plan(
    uint64_t seq, bool full, std::vector<uint64_t> entered, std::vector<uint64_t> left = {}) {
    dl::Plan p;
    p.full_baseline = full;
    p.entered = std::move(entered);
    p.left = std::move(left);
    return p.to_frame<TestDelta>(seq);
}

TEST(a_packet_older_than_the_newest_applied_is_acknowledged_not_applied) {
    // DELTA-20.
    dl::DeltaMirror<TestDelta> m;
    CHECK(m.apply(plan(1, true, {})).value().applied);
    CHECK(m.apply(plan(3, false, {}, {5})).value().applied);
    const auto late = m.apply(plan(2, false, {5})).value();
    CHECK(!late.applied);
    CHECK(!m.contains(dl::SlotKey::decode(5)));
    CHECK(m.acks().contains(2) && m.acks().contains(3));
    CHECK_EQ(m.frames_lost(), uint64_t{1});
    CHECK_EQ(m.ack()->newest, uint64_t{3});
}

TEST(a_mirror_holds_one_occupant_per_slot_and_refuses_stale_references) {
    // DELTA-22.
    dl::DeltaMirror<TestDelta> m;
    CHECK(!m.insert(dl::SlotKey{41, 7}, {}).has_value());
    CHECK(!m.insert(dl::SlotKey{41, 8}, {}).has_value());
    CHECK_EQ(m.size(), size_t{1});
    CHECK(!m.remove(dl::SlotKey{41, 7}).has_value());
    CHECK_EQ(m.stale_refs(), uint64_t{1});
    dl::DeltaMirror<TestDelta, std::string> named;
    CHECK(!named.insert(dl::SlotKey{3, 1}, "old").has_value());
    CHECK(!named.insert(dl::SlotKey{3, 2}, "new").has_value());
    CHECK(named.get(dl::SlotKey{3, 1}) == nullptr);
    CHECK_EQ(*named.get(dl::SlotKey{3, 2}), std::string("new"));
    CHECK_EQ(m.digest(), digest::SetDigest::from_keys(
                             std::vector<uint64_t>{dl::SlotKey{41, 8}.encode()})
                             .digest());
    const auto d = m.divergence_from(std::vector<uint64_t>{dl::SlotKey{41, 7}.encode()});
    CHECK_EQ(d.extra.size(), size_t{1});
    CHECK_EQ(d.missing.size(), size_t{1});
}

TEST(a_plan_past_max_keys_is_refused_whole_and_not_acknowledged) {
    // DELTA-24.
    auto k = [](uint32_t slot, uint16_t generation = 0) {
        return dl::SlotKey{slot, generation}.encode();
    };
    dl::MirrorLimits limits;
    limits.max_keys = 4;
    dl::DeltaMirror<TestDelta> m(limits);
    CHECK(m.apply(plan(1, true, {k(1), k(2), k(3)})).ok());
    const auto r = m.apply(plan(2, false, {k(4), k(5)}));
    CHECK(!r.ok());
    CHECK_EQ(r.error().would_hold, size_t{5});
    CHECK(!m.acks().contains(2));
    CHECK_EQ(m.size(), size_t{3});
    // Retractions free room first, and several generations of one slot take one.
    CHECK(m.apply(plan(3, false, {k(4), k(9, 1), k(9, 2)}, {k(1)})).ok());
    CHECK_EQ(m.size(), size_t{4});
    CHECK(m.contains(dl::SlotKey{9, 2}));
}

TEST(the_server_sends_full_sets_until_acked_then_differences_and_rebuilds_on_drift) {
    // DELTA-11, DELTA-12, DELTA-15.
    dl::DeltaBaseline b(32);
    std::set<uint64_t> world{1, 2};
    const dl::Plan p1 = b.plan(world, 1);
    CHECK(p1.full_baseline);
    CHECK_EQ(p1.entered, (std::vector<uint64_t>{1, 2}));
    const uint64_t held = digest::SetDigest::from_keys(world).digest();
    CHECK(b.observe_ack(1, 0, held).kind == digest::Agreement::Kind::agrees);
    CHECK_EQ(b.acked_seq(), std::optional<uint64_t>(1));
    world = {2, 3};
    const dl::Plan p2 = b.plan(world, 2);
    CHECK(!p2.full_baseline);
    CHECK_EQ(p2.baseline_seq, std::optional<uint64_t>(1));
    CHECK_EQ(p2.entered, (std::vector<uint64_t>{3}));
    CHECK_EQ(p2.left, (std::vector<uint64_t>{1}));
    // The mirror says it holds something else: the next plan is a full rebuild.
    CHECK(b.observe_ack(2, 1, 12345).is_disagreement());
    const dl::Plan p3 = b.plan(world, 3);
    CHECK(p3.full_baseline);
    CHECK_EQ(b.full_rebuilds(), uint64_t{1});
}

TEST(a_silent_subscriber_gets_keepalives_only) {
    // DELTA-18.
    dl::DeltaBaseline b(4);
    b.set_flow(100, 50);
    CHECK(b.should_send(0));
    CHECK(b.should_send(100));
    CHECK(b.stalled(101));
    CHECK(b.should_send(101));
    CHECK(!b.should_send(120));
    CHECK(b.should_send(151));
    // Its history stays bounded whatever it does not acknowledge.
    for (uint64_t seq = 1; seq <= 100; ++seq) {
        b.plan({seq}, seq);
        CHECK(b.held_states() <= 4);
    }
}

TEST(each_reuse_of_a_slot_is_the_next_generation_wrapping) {
    // DELTA-8.
    dl::SlotAllocator a(4, dl::ReusePolicy{});
    auto key = a.allocate();
    CHECK(key.has_value() && *key == (dl::SlotKey{0, 0}));
    for (uint16_t g = 1; g <= 3; ++g) {
        CHECK(a.free(*key));
        key = a.allocate();
        CHECK(*key == (dl::SlotKey{0, g}));
    }
    CHECK(!a.free(dl::SlotKey{0, 2}));
    CHECK_EQ(a.size(), size_t{1});
    dl::SlotAllocator one(1, dl::ReusePolicy{});
    auto k = one.allocate();
    for (uint32_t i = 0; i <= 0xFFFF; ++i) {
        CHECK(one.free(*k));
        k = one.allocate();
    }
    CHECK(*k == (dl::SlotKey{0, 0}));
    CHECK(!one.allocate().has_value());
    CHECK(!one.allocate_at(1).has_value());
}

TEST(lowest_free_reuses_the_lowest_and_fifo_the_longest_free) {
    // DELTA-8.
    dl::SlotAllocator a(8, dl::ReusePolicy{});
    std::vector<dl::SlotKey> keys;
    for (int i = 0; i < 5; ++i) {
        keys.push_back(*a.allocate());
    }
    CHECK(a.free(keys[3]) && a.free(keys[1]));
    CHECK(*a.allocate() == (dl::SlotKey{1, 1}));
    CHECK(*a.allocate() == (dl::SlotKey{3, 1}));
    CHECK(*a.allocate() == (dl::SlotKey{5, 0}));
    dl::SlotAllocator f(8, dl::ReusePolicy{dl::ReusePolicy::Kind::fifo, 0});
    keys.clear();
    for (int i = 0; i < 4; ++i) {
        keys.push_back(*f.allocate());
    }
    CHECK(f.free(keys[2]) && f.free(keys[0]));
    CHECK(*f.allocate() == (dl::SlotKey{2, 1}));
    CHECK(*f.allocate() == (dl::SlotKey{0, 1}));
    // A slot given out of order leaves the ones below it fresh.
    CHECK(*f.allocate_at(7) == (dl::SlotKey{7, 0}));
    CHECK(*f.allocate_at(5) == (dl::SlotKey{5, 0}));
    CHECK_EQ(f.live().size(), size_t{6});
}

// ---- NetBaseline over a test schema ----

// One component type whose value is a byte, encoded as itself.
struct TestBaseline {
    static constexpr size_t COMPONENT_TYPES = 1;
    static constexpr uint64_t ACK_WINDOW = 64;
    static constexpr size_t MAX_LOST_PER_SNAPSHOT = 64;
    using Value = uint8_t;
    struct EntityRef {
        uint32_t slot = 0;
        uint8_t generation = 0;
    };
    struct Entry {
        uint32_t gap = 0;
        uint8_t generation = 0;
        std::optional<uint8_t> value;
    };
    struct Body {
        std::vector<EntityRef> lost;
        std::vector<Entry> entries;
    };
    struct Snapshot {
        uint16_t sequence = 0;
        Body body;
    };
    struct SnapshotAck {
        uint16_t sequence = 0;
    };
    static size_t index(const Value&) { return 0; }
    static rt::Result<Bytes, rt::EncodeError> bits(const Value& v) { return Bytes{v}; }
    static size_t bit_len(const Value&) { return 8; }
    static Entry make_entry(
        uint32_t gap, uint8_t generation, const std::array<const Value*, 1>& values) {
        Entry e;
        e.gap = gap;
        e.generation = generation;
        if (values[0] != nullptr) {
            e.value = *values[0];
        }
        return e;
    }
    static uint32_t entry_gap(const Entry& e) { return e.gap; }
    static uint8_t entry_generation(const Entry& e) { return e.generation; }
    static std::array<std::optional<Value>, 1> entry_values(const Entry& e) { return {e.value}; }
};

TEST(sequences_compare_across_the_u16_wrap) {
    // NB-6.
    CHECK(bl::sequence_newer(1, 0));
    CHECK(bl::sequence_newer(0, 0xFFFF));
    CHECK(!bl::sequence_newer(0, 0));
    CHECK(!bl::sequence_newer(0x8000, 0));
}

TEST(a_component_is_sent_until_confirmed_and_a_loss_reported_until_confirmed) {
    // NB-7, NB-8, NB-11.
    bl::Scene<TestBaseline> scene;
    CHECK(!scene.spawn(bl::EntityId{3, 1}, std::nullopt).has_value());
    CHECK(!scene.set(3, 9).has_value());
    CHECK(scene.spawn(bl::EntityId{1u << 24, 1}, std::nullopt).has_value());
    CHECK(scene.set(4, 1).has_value());
    bl::SnapshotWriter<TestBaseline> w(std::nullopt, 1200, 0xFFFE);
    const auto s1 = w.write(scene).value();
    CHECK_EQ(s1.body.entries.size(), size_t{1});
    CHECK_EQ(s1.body.entries[0].gap, uint32_t{3});
    // Unconfirmed: said again.
    const auto s2 = w.write(scene).value();
    CHECK_EQ(s2.body.entries.size(), size_t{1});
    CHECK_EQ(s2.sequence, uint16_t{0xFFFF});
    w.on_ack(TestBaseline::SnapshotAck{s2.sequence});
    CHECK_EQ(w.write(scene).value().body.entries.size(), size_t{0});
    scene.despawn(3);
    const auto s4 = w.write(scene).value();
    CHECK_EQ(s4.body.lost.size(), size_t{1});
    CHECK_EQ(w.write(scene).value().body.lost.size(), size_t{1});
    w.on_ack(TestBaseline::SnapshotAck{s4.sequence});
    CHECK_EQ(w.write(scene).value().body.lost.size(), size_t{0});
    CHECK_EQ(w.baseline().told(), size_t{0});
}

TEST(a_connection_owing_more_than_max_owed_lost_stalls) {
    // NB-14.
    bl::Scene<TestBaseline> scene;
    for (uint32_t slot = 0; slot < 10; ++slot) {
        CHECK(!scene.spawn(bl::EntityId{slot, 0}, std::nullopt).has_value());
        CHECK(!scene.set(slot, 1).has_value());
    }
    bl::BaselineLimits limits;
    limits.max_owed_lost = 4;
    bl::SnapshotWriter<TestBaseline> w(std::nullopt, 1200, 0, limits);
    CHECK(w.write(scene).ok());
    for (uint32_t slot = 0; slot < 10; ++slot) {
        scene.despawn(slot);
    }
    const auto stalled = w.write(scene);
    CHECK(!stalled.ok());
    CHECK(stalled.error().kind == ackwire::session::SessionError::Kind::limit);
}

TEST(a_client_holds_at_most_max_entities_and_skips_stale_and_malformed_snapshots) {
    // NB-16, NB-17, NB-4.
    bl::SnapshotClient<TestBaseline> c(2);
    TestBaseline::Snapshot s;
    s.sequence = 5;
    for (uint32_t i = 0; i < 3; ++i) {
        s.body.entries.push_back(TestBaseline::Entry{0, 1, uint8_t{4}});
    }
    const auto r = c.receive(s);
    CHECK(r.applied);
    CHECK_EQ(r.created, uint32_t{2});
    CHECK_EQ(r.refused, uint32_t{1});
    CHECK_EQ(c.take_acks().size(), size_t{1});
    CHECK(c.receive(s).stale);
    TestBaseline::Snapshot bad;
    bad.sequence = 6;
    bad.body.entries.push_back(TestBaseline::Entry{0xFFFFFF, 1, std::nullopt});
    bad.body.entries.push_back(TestBaseline::Entry{0xFFFFFFFFu, 1, std::nullopt});
    CHECK(c.receive(bad).malformed);
    CHECK_EQ(c.entities().size(), size_t{2});
    CHECK_EQ(c.take_acks().size(), size_t{0});
    // slot 0 (gen 1, mask 1, value 4) and slot 1 alike.
    CHECK_EQ(c.canonical_bytes(), (Bytes{0, 0, 0, 0, 1, 1, 4, 1, 0, 0, 0, 1, 1, 4}));
}

TEST(a_world_replaced_on_both_sides_is_a_clean_slate) {
    // NB-13.
    bl::Scene<TestBaseline> scene;
    CHECK(!scene.spawn(bl::EntityId{2, 0}, std::nullopt).has_value());
    CHECK(!scene.set(2, 5).has_value());
    bl::SnapshotWriter<TestBaseline> w(std::nullopt, 1200, 0);
    bl::SnapshotClient<TestBaseline> c(16);
    c.receive(w.write(scene).value());
    CHECK_EQ(c.entities().size(), size_t{1});
    bl::Scene<TestBaseline> next;
    CHECK(!next.spawn(bl::EntityId{9, 0}, std::nullopt).has_value());
    CHECK(!next.set(9, 6).has_value());
    w.replace_world();
    c.replace_world(w.next_sequence());
    CHECK_EQ(w.baseline().told(), size_t{0});
    const auto s = w.write(next).value();
    // Nothing of the old world is owed: the client dropped it at the same point.
    CHECK_EQ(s.body.lost.size(), size_t{0});
    const auto r = c.receive(s);
    CHECK(r.applied);
    CHECK_EQ(c.entities().size(), size_t{1});
    CHECK(c.entities().count(9) == 1);
    // A snapshot of the old world arriving late is older than the new world's first.
    TestBaseline::Snapshot old;
    old.sequence = static_cast<uint16_t>(s.sequence - 1u);
    CHECK(c.receive(old).stale);
}

int main() { return check::run_all(); }
