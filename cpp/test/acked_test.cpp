// Tests of the runtime's acked machines (include/ackwire_acked.hpp, `docs/spec/acked.md`) over a
// small test schema of their own (the runtime's tests see the runtime alone, never a generated
// codec): the AckedEncoder and the AckedDecoder held to each other under loss, duplication and
// reordering (every frame shown is S_N of its tick), the report against the last frame shown, each
// event once, the check and the keyframe request after a mismatch, hostile frames and acks, the
// input schedule, the tier boundary, the kind 7 writer, and a warm delivery that allocates nothing
// (this binary counts operator new).
//
// The reference schema's machines are held to the Rust halves byte for byte by the conformance
// suite's stream vectors (`ackwire conform --filter streams/acked` on the C++ testee).

#include "ackwire_acked.hpp"
#include "check.hpp"
#include "count_new.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace ackwire;
using acked::AckVerdict;

// ---- the test schema ----

// A record: a value, the tick it was measured at, and its "tier".
struct Rec {
    int32_t v = 0;
    uint32_t measured = 0;
    bool full = false;
    friend bool operator==(const Rec& a, const Rec& b) {
        return a.v == b.v && a.measured == b.measured && a.full == b.full;
    }
};

// A change carries the whole record (v, full, the age of its measurement) or, with `whole`
// clear, nothing but a new v: a change without it cannot bring an entity whole.
struct Chg {
    uint16_t eid = 0;
    bool whole = true;
    int32_t v = 0;
    bool full = false;
    uint8_t age = 0;
};

struct Toy {
    using Record = Rec;
    using Change = Chg;
    using Event = uint16_t;
    static constexpr size_t SENT_RING = 8;
    static constexpr size_t HELD_RING = 16;
    static constexpr uint64_t EVENT_TTL = 10;
    static constexpr uint32_t CHECK_EVERY = 5;
    static constexpr size_t RELIABLE_ABOVE = 64;

    static rt::EncodeStatus diff(
        uint16_t eid, const Rec* base, const Rec& next, uint32_t tick, std::optional<Chg>& out) {
        out.reset();
        if (base != nullptr && *base == next) {
            return std::nullopt;
        }
        if (tick < next.measured || tick - next.measured > 255) {
            rt::EncodeError e(rt::ErrorKind::over_width);
            e.path.push_field("age");
            return e;
        }
        out = Chg{eid, true, next.v, next.full, static_cast<uint8_t>(tick - next.measured)};
        return std::nullopt;
    }

    static uint16_t change_eid(const Chg& c) { return c.eid; }

    static const char* apply(const Rec* base, const Chg& c, uint32_t tick, Rec& out) {
        if (base == nullptr && !c.whole) {
            return "an entity comes whole without every group";
        }
        Rec r = base != nullptr ? *base : Rec{};
        r.v = c.v;
        if (c.whole) {
            if (c.age > tick) {
                return "a pose measured before tick 0";
            }
            r.full = c.full;
            r.measured = tick - c.age;
        }
        out = r;
        return nullptr;
    }

    static void write_record(const Rec& r, std::vector<uint8_t>& out) {
        const auto u = static_cast<uint32_t>(r.v);
        for (int s = 0; s < 32; s += 8) {
            out.push_back(static_cast<uint8_t>(u >> s));
        }
        for (int s = 0; s < 32; s += 8) {
            out.push_back(static_cast<uint8_t>(r.measured >> s));
        }
        out.push_back(r.full ? 1 : 0);
    }

    static std::optional<uint32_t> measured(const Rec& r) { return r.measured; }
    static std::optional<bool> pose_full(const Rec& r) { return r.full; }

    // The toy frame: u32 tick, u32 base, u32 last_seq, u8 input_buffer, u8 flags (bit 0
    // keyframe, bit 1 check), [u32 check], u16 removed count, u16 ids, u16 change count,
    // changes (u16 eid, u8 whole, i32 v, u8 full, u8 age), u8 event count, [u32 first serial],
    // u16 events; all little-endian.
    static rt::EncodeStatus encode_frame(const acked::Frame<Toy>& f, std::vector<uint8_t>& out) {
        const auto u8 = [&](uint64_t v) { out.push_back(static_cast<uint8_t>(v)); };
        const auto le = [&](uint64_t v, int n) {
            for (int i = 0; i < n; ++i) {
                u8(v >> (8 * i));
            }
        };
        if (f.removed.size() > 0xffff || f.changes.size() > 0xffff || f.events.size() > 255) {
            return rt::EncodeError(rt::ErrorKind::over_width);
        }
        le(f.tick, 4);
        le(f.base_tick, 4);
        le(f.last_seq, 4);
        u8(f.input_buffer);
        u8((f.keyframe ? 1u : 0u) | (f.check ? 2u : 0u));
        if (f.check) {
            le(*f.check, 4);
        }
        le(f.removed.size(), 2);
        for (const uint16_t id : f.removed) {
            le(id, 2);
        }
        le(f.changes.size(), 2);
        for (const Chg& c : f.changes) {
            le(c.eid, 2);
            u8(c.whole ? 1 : 0);
            le(static_cast<uint32_t>(c.v), 4);
            u8(c.full ? 1 : 0);
            u8(c.age);
        }
        u8(f.events.size());
        if (!f.events.empty()) {
            le(f.first_serial, 4);
        }
        for (const uint16_t e : f.events) {
            le(e, 2);
        }
        return std::nullopt;
    }

    static std::optional<rt::DecodeError> decode_frame_into(
        const uint8_t* data, size_t len, acked::Frame<Toy>& out) {
        size_t at = 0;
        bool ok = true;
        const auto take = [&](int n) -> uint64_t {
            if (!ok || len - at < static_cast<size_t>(n)) {
                ok = false;
                return 0;
            }
            uint64_t v = 0;
            for (int i = 0; i < n; ++i) {
                v |= uint64_t{data[at + static_cast<size_t>(i)]} << (8 * i);
            }
            at += static_cast<size_t>(n);
            return v;
        };
        const auto truncated = [&] { return rt::DecodeError(rt::ErrorKind::truncated, len); };
        out.tick = static_cast<uint32_t>(take(4));
        out.base_tick = static_cast<uint32_t>(take(4));
        out.last_seq = static_cast<uint32_t>(take(4));
        out.input_buffer = static_cast<uint8_t>(take(1));
        const uint64_t flags = take(1);
        if (!ok) {
            return truncated();
        }
        if ((flags & ~uint64_t{3}) != 0) {
            return rt::DecodeError(rt::ErrorKind::reserved_bit, 13);
        }
        out.keyframe = (flags & 1) != 0;
        out.check.reset();
        if ((flags & 2) != 0) {
            out.check = static_cast<uint32_t>(take(4));
        }
        // Every count is held to the bytes left before anything is read for it.
        const uint64_t removed = take(2);
        if (ok && removed * 2 > len - at) {
            return rt::DecodeError(rt::ErrorKind::count_too_large, at);
        }
        out.removed.clear();
        for (uint64_t i = 0; ok && i < removed; ++i) {
            out.removed.push_back(static_cast<uint16_t>(take(2)));
        }
        const uint64_t changes = take(2);
        if (ok && changes * 9 > len - at) {
            return rt::DecodeError(rt::ErrorKind::count_too_large, at);
        }
        out.changes.clear();
        for (uint64_t i = 0; ok && i < changes; ++i) {
            Chg c;
            c.eid = static_cast<uint16_t>(take(2));
            c.whole = take(1) != 0;
            c.v = static_cast<int32_t>(static_cast<uint32_t>(take(4)));
            c.full = take(1) != 0;
            c.age = static_cast<uint8_t>(take(1));
            out.changes.push_back(c);
        }
        const uint64_t events = take(1);
        out.first_serial = events > 0 ? static_cast<uint32_t>(take(4)) : 0;
        if (ok && events * 2 > len - at) {
            return rt::DecodeError(rt::ErrorKind::count_too_large, at);
        }
        out.events.clear();
        for (uint64_t i = 0; ok && i < events; ++i) {
            out.events.push_back(static_cast<uint16_t>(take(2)));
        }
        if (!ok) {
            return truncated();
        }
        if (at != len) {
            return rt::DecodeError(rt::ErrorKind::trailing_bytes, at);
        }
        if (out.keyframe && out.base_tick != 0) {
            return rt::DecodeError(rt::ErrorKind::invalid_condition, 5);
        }
        return std::nullopt;
    }
};

// A sink that holds every input it is given (the encoder's bound keeps it small).
struct Held {
    using Input = uint32_t;
    std::vector<std::pair<uint32_t, uint32_t>> inputs;
    void submit(uint32_t /*seq*/, uint32_t tick, uint32_t input, uint64_t /*current*/) {
        inputs.emplace_back(tick, input);
    }
    size_t pending() const { return inputs.size(); }
};

using Encoder = acked::AckedEncoder<Toy, Held>;
using Decoder = acked::AckedDecoder<Toy>;
using State = acked::ServerState<Rec>;
using Kind = acked::Delivery<uint16_t>::Kind;

const std::vector<uint32_t> NO_INPUTS;
uint32_t same(uint32_t t) { return t; }

// SplitMix64, for seeded worlds and networks.
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15u);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        return z ^ (z >> 31);
    }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

// A world of `n` ids whose values drift, spawning and despawning (a respawn is a new life).
struct World {
    std::map<uint16_t, std::pair<uint32_t, Rec>> ents;
    std::map<uint16_t, uint32_t> lives;

    State step(Rng& rng, uint32_t tick, uint16_t n) {
        for (uint16_t id = 1; id <= n; ++id) {
            const uint32_t roll = rng.below(100);
            auto it = ents.find(id);
            if (it == ents.end()) {
                if (roll < 30) {
                    const Rec r{static_cast<int32_t>(rng.below(1000)), tick, roll % 2 == 0};
                    ents[id] = {++lives[id], r};
                }
            } else if (roll < 3) {
                ents.erase(it);
            } else if (roll < 50) {
                it->second.second.v += static_cast<int32_t>(rng.below(7)) - 3;
                it->second.second.measured = tick;
            }
        }
        State s;
        for (const auto& e : ents) {
            s.emplace_back(e.first, acked::Entry<Rec>{e.second.first, e.second.second});
        }
        return s;
    }
};

uint32_t hash_of(const Decoder& d) { return d.state_hash(); }

// ---- the two halves under loss ----

// Runs `ticks` ticks of a world through an encoder and a decoder over a network that loses
// `loss` percent of frames each way, duplicates `dup` percent, and delays each by up to
// `jitter` ticks; checks every frame shown is S_N of its tick and every event is shown once.
void run_lossy(uint64_t seed, uint32_t ticks, uint32_t loss, uint32_t dup, uint32_t jitter) {
    Rng rng{seed};
    World world;
    Encoder enc(Held{});
    Decoder dec;
    std::map<uint32_t, uint32_t> truth;  // tick -> server_check of S_N
    std::multimap<uint32_t, std::vector<uint8_t>> down;  // arrival tick -> frame
    std::multimap<uint32_t, uint32_t> up;                // arrival tick -> ack tick
    std::vector<uint32_t> shown_serials;
    uint32_t events_sent = 0;
    bool every_shown_true = true;
    for (uint32_t t = 1; t <= ticks + 40; ++t) {
        if (t <= ticks) {
            State s = world.step(rng, t, 12);
            truth[t] = acked::server_check<Toy>(s);
            std::vector<uint16_t> events;
            if (rng.below(3) == 0) {
                events.push_back(static_cast<uint16_t>(t));
                events_sent += 1;
            }
            auto out = enc.encode(t, std::move(s), std::move(events));
            CHECK(out.ok());
            if (!out.ok()) {
                return;
            }
            CHECK(enc.kept() <= Toy::SENT_RING);
            const bool lossy = t < ticks - 30;  // the network heals for the last ticks
            const uint32_t copies = lossy && rng.below(100) < dup ? 2 : 1;
            for (uint32_t c = 0; c < copies; ++c) {
                if (!lossy || rng.below(100) >= loss) {
                    const uint32_t delay = 1 + (lossy && jitter > 0 ? rng.below(jitter + 1) : 0);
                    down.emplace(t + delay, out.value().bytes);
                }
            }
        }
        for (auto it = down.begin(); it != down.end() && it->first <= t;) {
            const auto d = dec.deliver(it->second);
            if (d.kind == Kind::shown) {
                every_shown_true = every_shown_true && truth[d.report->tick] == hash_of(dec);
                for (const auto& e : d.report->events) {
                    shown_serials.push_back(e.first);
                }
                CHECK(d.report->check != std::optional<bool>(false));
            }
            CHECK(d.kind != Kind::undecodable && d.kind != Kind::inapplicable);
            CHECK(dec.held_count() <= Toy::HELD_RING);
            it = down.erase(it);
        }
        for (auto it = up.begin(); it != up.end() && it->first <= t;) {
            enc.on_ack(t, it->second, false, 0, NO_INPUTS, same);
            it = up.erase(it);
        }
        const bool lossy = t < ticks - 30;
        if (!lossy || rng.below(100) >= loss) {
            up.emplace(t + 1 + (lossy && jitter > 0 ? rng.below(jitter + 1) : 0), dec.ack_tick());
        }
    }
    CHECK(every_shown_true);
    // The last frame, after the network healed, is shown: the client ends where the server is.
    CHECK(dec.shown_tick() == std::optional<uint32_t>(ticks));
    CHECK_EQ(hash_of(dec), truth[ticks]);
    // Each event shown once, in ascending serial.
    for (size_t i = 1; i < shown_serials.size(); ++i) {
        CHECK(shown_serials[i - 1] < shown_serials[i]);
    }
    CHECK(shown_serials.size() <= events_sent);
    CHECK(dec.counters().applied > 0);
}

TEST(a_lossless_stream_shows_every_frame_as_the_server_computed_it) {
    // GEN-3, ACK-19, ACK-21.
    run_lossy(1, 200, 0, 0, 0);
    // Without loss every event is shown (none outlives EVENT_TTL).
    Rng rng{2};
    World world;
    Encoder enc(Held{});
    Decoder dec;
    uint32_t shown = 0;
    for (uint32_t t = 1; t <= 100; ++t) {
        auto out = enc.encode(t, world.step(rng, t, 8), {static_cast<uint16_t>(t)});
        CHECK(out.ok());
        const auto d = dec.deliver(out.value().bytes);
        CHECK(d.kind == Kind::shown);
        if (d.kind == Kind::shown) {
            shown += static_cast<uint32_t>(d.report->events.size());
            CHECK_EQ(d.report->keyframe, t == 1);
        }
        enc.on_ack(t, dec.ack_tick(), false, 0, NO_INPUTS, same);
    }
    CHECK_EQ(shown, 100u);
    CHECK_EQ(enc.counters().keyframes, uint64_t{1});
    CHECK_EQ(dec.counters().checks_passed, uint64_t{100 / Toy::CHECK_EVERY});
}

TEST(lossy_duplicated_reordered_streams_show_what_the_server_computed) {
    // GEN-3.
    for (uint64_t seed = 0; seed < 30; ++seed) {
        run_lossy(seed, 300, 25, 20, 4);
    }
    // A loss longer than SENT_RING frames: keyframes recover.
    run_lossy(99, 300, 70, 0, 0);
}

// ---- the report against the last frame shown ----

State one(std::vector<std::pair<uint16_t, Rec>> recs, uint32_t life = 1) {
    State s;
    for (auto& r : recs) {
        s.emplace_back(r.first, acked::Entry<Rec>{life, r.second});
    }
    return s;
}

TEST(the_report_is_against_the_last_frame_shown_not_the_base) {
    // ACK-34.
    Encoder enc(Held{});
    Decoder dec;
    // Frame 1 (keyframe) shown and acknowledged; frame 2 shown but its ack lost; frame 3 goes
    // onto base 1 and carries entity 2's change again, which the client already showed.
    auto f1 = enc.encode(1, one({{1, Rec{10, 1, true}}, {2, Rec{20, 1, false}}}), {});
    CHECK(dec.deliver(f1.value().bytes).kind == Kind::shown);
    CHECK(enc.on_ack(1, 1, false, 0, NO_INPUTS, same) == AckVerdict::taken);
    auto f2 = enc.encode(2, one({{1, Rec{10, 1, true}}, {2, Rec{21, 2, false}}}), {});
    const auto d2 = dec.deliver(f2.value().bytes);
    CHECK(d2.kind == Kind::shown);
    CHECK_EQ(d2.report->changed, std::vector<uint16_t>{2});
    auto f3 = enc.encode(3, one({{2, Rec{21, 2, false}}, {3, Rec{30, 1, true}}}), {});
    CHECK_EQ(f3.value().frame.base_tick, 1u);
    const auto d3 = dec.deliver(f3.value().bytes);
    CHECK(d3.kind == Kind::shown);
    if (d3.kind == Kind::shown) {
        // Entity 2's change rides again (against base 1) but is no news to the client.
        CHECK_EQ(d3.report->changed, std::vector<uint16_t>{3});
        CHECK_EQ(d3.report->gone, std::vector<uint16_t>{1});
        CHECK_EQ(d3.report->measured.size(), size_t{1});
        CHECK_EQ(d3.report->measured[0].first, uint16_t{3});
        CHECK_EQ(d3.report->tiers.size(), size_t{1});
        CHECK(d3.report->tiers[0].second);
    }
    CHECK_EQ(dec.state_hash(),
        acked::server_check<Toy>(one({{2, Rec{21, 2, false}}, {3, Rec{30, 1, true}}})));
    // A pose measured in a lost frame travels with its age: recorded at tick minus age.
    auto f4 = enc.encode(5, one({{2, Rec{22, 4, false}}, {3, Rec{30, 1, true}}}), {});
    const auto d4 = dec.deliver(f4.value().bytes);
    CHECK(d4.kind == Kind::shown);
    if (d4.kind == Kind::shown) {
        CHECK_EQ(d4.report->measured.size(), size_t{1});
        CHECK_EQ(d4.report->measured[0].second, 4u);
    }
    // A respawn under the same id (a new life) is removed and whole again.
    // (Onto base 1, the last acknowledged: 1 is gone, 2 comes again whole.)
    auto f5 = enc.encode(6, one({{2, Rec{22, 4, false}}, {3, Rec{30, 1, true}}}, 2), {});
    CHECK_EQ(f5.value().frame.removed, (std::vector<uint16_t>{1, 2}));
    CHECK(dec.deliver(f5.value().bytes).kind == Kind::shown);
}

// ---- stale, unknown base, hostile frames ----

std::vector<uint8_t> bytes_of(const acked::Frame<Toy>& f) {
    std::vector<uint8_t> out;
    CHECK(!Toy::encode_frame(f, out));
    return out;
}

acked::Frame<Toy> keyframe(uint32_t tick, std::vector<Chg> changes) {
    acked::Frame<Toy> f;
    f.tick = tick;
    f.keyframe = true;
    f.changes = std::move(changes);
    return f;
}

TEST(stale_frames_and_unknown_bases_are_dropped_without_a_word) {
    // ACK-30, ACK-31.
    Decoder dec;
    CHECK(dec.deliver(bytes_of(keyframe(10, {Chg{1, true, 5, true, 0}}))).kind == Kind::shown);
    const uint32_t hash = dec.state_hash();
    const auto stale = dec.deliver(bytes_of(keyframe(10, {Chg{1, true, 6, true, 0}})));
    CHECK(stale.kind == Kind::stale);
    CHECK(dec.deliver(bytes_of(keyframe(3, {}))).kind == Kind::stale);
    acked::Frame<Toy> f;
    f.tick = 11;
    f.base_tick = 9;  // never got
    f.changes = {Chg{1, true, 7, true, 0}};
    const auto unknown = dec.deliver(bytes_of(f));
    CHECK(unknown.kind == Kind::unknown_base);
    CHECK_EQ(unknown.base_tick, 9u);
    CHECK_EQ(dec.state_hash(), hash);
    CHECK_EQ(dec.counters().stale, uint64_t{2});
    CHECK_EQ(dec.counters().unknown_base, uint64_t{1});
    CHECK_EQ(dec.ack_tick(), 10u);
}

TEST(hostile_frames_are_refused_whole_and_never_applied_in_part) {
    // ACK-32.
    Decoder dec;
    const auto first = keyframe(1, {Chg{1, true, 5, true, 0}, Chg{2, true, 6, false, 0}});
    CHECK(dec.deliver(bytes_of(first)).kind == Kind::shown);
    const uint32_t hash = dec.state_hash();
    const auto refused = [&](acked::Frame<Toy> f, const char* why) {
        const auto d = dec.deliver(bytes_of(f));
        CHECK(d.kind == Kind::inapplicable);
        if (d.kind == Kind::inapplicable) {
            CHECK_EQ(std::string(d.why), std::string(why));
        }
        CHECK_EQ(dec.state_hash(), hash);
    };
    acked::Frame<Toy> f;
    f.tick = 2;
    f.base_tick = 1;
    f.removed = {7};
    refused(f, "a removed id the base does not hold");
    f.removed = {1, 1};
    refused(f, "a removed id the base does not hold");
    f.removed = {};
    f.changes = {Chg{2, true, 1, true, 0}, Chg{1, true, 1, true, 0}};
    refused(f, "changes not in ascending id order");
    f.changes = {Chg{1, true, 9, true, 0}, Chg{9, false, 1, true, 0}};
    refused(f, "an entity comes whole without every group");
    f.changes = {Chg{1, true, 9, true, 9}};
    refused(f, "a pose measured before tick 0");
    // A keyframe removes nothing (it applies onto nothing).
    acked::Frame<Toy> k = keyframe(2, {});
    k.removed = {1};
    refused(k, "a removed id the base does not hold");
    // The removals of a frame in any order of distinct held ids apply.
    f.changes = {};
    f.removed = {2, 1};
    CHECK(dec.deliver(bytes_of(f)).kind == Kind::shown);
    CHECK_EQ(dec.live().size(), size_t{0});
    CHECK_EQ(dec.counters().inapplicable, uint64_t{6});
}

TEST(bytes_that_are_not_a_frame_never_crash_the_decoder) {
    // GEN-5.
    Rng rng{7};
    Decoder dec;
    Encoder enc(Held{});
    World world;
    std::vector<std::vector<uint8_t>> frames;
    for (uint32_t t = 1; t <= 40; ++t) {
        frames.push_back(enc.encode(t, world.step(rng, t, 20), {1, 2}).value().bytes);
        enc.on_ack(t, t, false, 0, NO_INPUTS, same);
    }
    size_t refused = 0;
    for (int i = 0; i < 20000; ++i) {
        std::vector<uint8_t> b = frames[rng.below(static_cast<uint32_t>(frames.size()))];
        switch (rng.below(4)) {
            case 0:
                b[rng.below(static_cast<uint32_t>(b.size()))] ^=
                    static_cast<uint8_t>(1 + rng.below(255));
                break;
            case 1:
                b.resize(rng.below(static_cast<uint32_t>(b.size())));
                break;
            case 2:
                b.push_back(static_cast<uint8_t>(rng.below(256)));
                break;
            default:
                for (auto& x : b) {
                    x = static_cast<uint8_t>(rng.below(256));
                }
        }
        const auto d = dec.deliver(b);
        refused += d.kind == Kind::undecodable ? 1u : 0u;
        CHECK(dec.held_count() <= Toy::HELD_RING);
    }
    CHECK(refused > 1000);
    // A removal list of 65,535 ids and as many changes costs what it holds, once.
    acked::Frame<Toy> big = keyframe(0xfffffff0u, {});
    for (uint32_t id = 0; id < 0xffff; ++id) {
        big.changes.push_back(Chg{static_cast<uint16_t>(id), true, 1, false, 0});
    }
    CHECK(dec.deliver(bytes_of(big)).kind == Kind::shown);
    CHECK_EQ(dec.live().size(), size_t{0xffff});
    acked::Frame<Toy> gone;
    gone.tick = 0xfffffff1u;
    gone.base_tick = 0xfffffff0u;
    for (uint32_t id = 0xffff; id-- > 0;) {
        gone.removed.push_back(static_cast<uint16_t>(id));
    }
    CHECK(dec.deliver(bytes_of(gone)).kind == Kind::shown);
    CHECK_EQ(dec.live().size(), size_t{0});
}

// ---- the check and the keyframe request ----

TEST(a_check_mismatch_drops_every_base_and_asks_for_a_keyframe) {
    // ACK-36, ACK-13.
    Encoder enc(Held{});
    Decoder dec;
    // A world at rest: nothing overwrites the corrupted records before the check.
    const State still = one({{1, Rec{1, 1, true}}, {2, Rec{2, 1, false}}, {3, Rec{3, 1, true}}});
    uint32_t failed_at = 0;
    uint32_t recovered_at = 0;
    for (uint32_t t = 1; t <= 40; ++t) {
        if (t == 7) {
            dec.tamper([](uint16_t, Rec& r) { r.v ^= 0x55; });
        }
        auto out = enc.encode(t, still, {});
        const auto d = dec.deliver(out.value().bytes);
        if (d.kind == Kind::shown && d.report->check == std::optional<bool>(false)) {
            failed_at = t;
            CHECK(dec.keyframe_wanted());
            CHECK_EQ(dec.ack_tick(), 0u);
            CHECK_EQ(dec.held_count(), size_t{0});
        }
        if (failed_at != 0 && recovered_at == 0 && d.kind == Kind::shown && d.report->keyframe
            && t > failed_at) {
            recovered_at = t;
            CHECK(!dec.keyframe_wanted());
        }
        const auto v = enc.on_ack(t, dec.ack_tick(), dec.keyframe_wanted(), 0, NO_INPUTS, same);
        if (dec.keyframe_wanted()) {
            CHECK(v == AckVerdict::keyframe_requested);
        }
    }
    CHECK_EQ(failed_at, 10u);  // the check of the tenth frame (CHECK_EVERY = 5) catches it
    CHECK(recovered_at > failed_at);
    CHECK_EQ(dec.counters().checks_failed, uint64_t{1});
    CHECK(dec.counters().checks_passed >= 5);
}

// ---- the encoder against hostile acks ----

TEST(hostile_acks_never_move_the_base_off_the_ring) {
    // ACK-19, ACK-26.
    Encoder e(Held{});
    Rng rng{5};
    World world;
    std::vector<uint32_t> sent;
    for (uint32_t t = 1; t <= 300; ++t) {
        auto out = e.encode(t, world.step(rng, t, 5), {});
        if (!out.value().frame.keyframe) {
            const uint32_t base = out.value().frame.base_tick;
            CHECK(std::find(sent.begin(), sent.end(), base) != sent.end());
            CHECK(base + Toy::SENT_RING >= t);
        }
        sent.push_back(t);
        const uint32_t back = t > 40 ? t - 40 : 0u;
        for (const uint32_t ack : {t + 1, t + 1000, 0xFFFFFFFFu, 0u, back, t / 2, t}) {
            e.on_ack(t, ack, t % 17 == 0, 0, NO_INPUTS, same);
        }
        CHECK(e.kept() <= Toy::SENT_RING);
    }
    CHECK(e.counters().acks_unknown > 0 && e.counters().acks_old > 0);
    CHECK(e.counters().keyframe_requests > 0);
    // Acks from before a keyframe request never come back as a base.
    Encoder k(Held{});
    for (uint32_t t = 1; t <= 10; ++t) {
        (void)k.encode(t, one({{1, Rec{1, t, true}}}), {});
    }
    CHECK(k.on_ack(10, 0, true, 0, NO_INPUTS, same) == AckVerdict::keyframe_requested);
    CHECK(k.on_ack(10, 9, false, 0, NO_INPUTS, same) == AckVerdict::old);
    CHECK(k.encode(11, one({{1, Rec{1, 11, true}}}), {}).value().frame.keyframe);
    CHECK(k.on_ack(11, 11, false, 0, NO_INPUTS, same) == AckVerdict::taken);
    CHECK(!k.encode(12, one({{1, Rec{1, 12, true}}}), {}).value().frame.keyframe);
    // A tick not newer than the last frame's is refused.
    CHECK(!k.encode(12, one({}), {}).ok());
}

TEST(events_expire_after_event_ttl_frames_and_checks_follow_every_check_every_frames) {
    // ACK-23, ACK-24.
    Encoder e(Held{});
    size_t carried = 0;
    std::vector<uint32_t> checked;
    for (uint32_t t = 1; t <= 40; ++t) {
        // Odd ticks only: the check counts frames, not ticks.
        auto out = e.encode(2 * t + 1, one({{1, Rec{1, 2 * t + 1, true}}}),
            t == 1 ? std::vector<uint16_t>{9} : std::vector<uint16_t>{});
        carried += out.value().frame.events.size();
        if (out.value().frame.check) {
            checked.push_back(t);
        }
        CHECK_EQ(out.value().reliable, out.value().bytes.size() > Toy::RELIABLE_ABOVE);
    }
    CHECK_EQ(carried, size_t{Toy::EVENT_TTL});
    CHECK_EQ(e.counters().events_expired, uint64_t{1});
    CHECK_EQ(checked, (std::vector<uint32_t>{5, 10, 15, 20, 25, 30, 35, 40}));
    // A large frame goes on the reliable channel.
    std::vector<std::pair<uint16_t, Rec>> many;
    for (uint16_t id = 1; id <= 20; ++id) {
        many.emplace_back(id, Rec{id, 100, false});
    }
    auto big = e.encode(100, one(many), {});
    CHECK(big.value().reliable);
    CHECK_EQ(e.counters().reliable, uint64_t{1});
}

TEST(input_floods_and_sequence_jumps_stay_bounded) {
    // ACK-25.
    Encoder e(Held{});
    std::vector<uint32_t> flood(255, 5);
    for (uint32_t i = 0; i < 10; ++i) {
        e.on_ack(1, 0, false, 1 + i * 255, flood, same);
    }
    CHECK_EQ(e.inputs().pending(), acked::MAX_BUFFERED_INPUTS);
    CHECK(e.counters().inputs_overflow > 0);
    // Repeated inputs are taken once; a sequence past 2^32 - 1 stops the frame.
    const uint64_t taken = e.counters().inputs_taken;
    e.on_ack(1, 0, false, 0xFFFFFFF0u, flood, same);
    CHECK_EQ(e.last_seq(), 0xFFFFFFFFu);
    e.on_ack(1, 0, false, 1, flood, same);
    CHECK(e.counters().inputs_repeated >= 255);
    CHECK_EQ(e.counters().inputs_taken, taken);
}

// ---- the input schedule, the tier boundary, the kind 7 writer ----

TEST(the_input_schedule_executes_on_the_named_tick_within_the_window) {
    // SRV-12, SRV-13.
    acked::InputSchedule<char> s;
    const acked::InputWindow w{2, 10};
    CHECK(s.submit(105, 'a', 100, w) == acked::Submission::scheduled);
    CHECK(!s.execute_due(104));
    CHECK(s.execute_due(105) == std::optional<char>('a'));
    CHECK(s.submit(98, 'b', 100, w) == acked::Submission::late);
    CHECK(s.submit(97, 'c', 100, w) == acked::Submission::tick_closed);
    CHECK(s.submit(111, 'd', 100, w) == acked::Submission::too_far_ahead);
    CHECK(s.submit(0xFFFFFFFFFFFFFFFFu, 'e', 0xFFFFFFFFFFFFFFFAu, w)
        == acked::Submission::scheduled);
    CHECK_EQ(s.pending(), size_t{2});
    // The newest due input wins (level semantics); the others are consumed.
    CHECK(s.submit(106, 'f', 100, w) == acked::Submission::scheduled);
    CHECK(s.execute_due(106) == std::optional<char>('f'));
    CHECK_EQ(s.pending(), size_t{1});
    CHECK_EQ(s.rejected(), uint64_t{2});
    CHECK_EQ(s.late(), uint64_t{1});
    // Never behind what was executed: an input naming an older tick runs on the executed one.
    CHECK(s.submit(105, 'g', 105, w) == acked::Submission::scheduled);
    CHECK(s.execute_due(106) == std::optional<char>('g'));
}

TEST(the_input_schedule_counts_what_it_holds_as_it_goes) {
    // Issue 38: pending() is asked for every input a client sends, so it is a running count;
    // under a window of every tick, 300 inputs at ticks of their own are 300 pending.
    acked::InputSchedule<uint32_t> s;
    const uint64_t all = 0xFFFFFFFFFFFFFFFFu;
    const acked::InputWindow wide{all, all};
    for (uint32_t i = 0; i < 300; ++i) {
        CHECK(s.submit(1000 + i, i, 1000, wide) == acked::Submission::scheduled);
    }
    CHECK_EQ(s.pending(), size_t{300});
    CHECK(s.execute_due(1149) == std::optional<uint32_t>(149));
    CHECK_EQ(s.pending(), size_t{150});
    CHECK(s.submit(1, 7, 1149, wide) == acked::Submission::late);
    CHECK_EQ(s.pending(), size_t{151});
    CHECK(s.execute_due(all) == std::optional<uint32_t>(299));
    CHECK_EQ(s.pending(), size_t{0});
}

TEST(the_tier_boundary_has_hysteresis) {
    // SRV-8.
    const acked::TierBoundary tier(10.0f, 12.0f);
    CHECK(tier.admits(false, 10.0f) && !tier.admits(false, 11.0f));
    CHECK(tier.admits(true, 12.0f) && !tier.admits(true, 12.5f));
    const acked::TierBoundary clamped(10.0f, 5.0f);
    CHECK_EQ(clamped.leave(), 10.0f);
    CHECK(!tier.admits(true, std::numeric_limits<float>::quiet_NaN()));
}

TEST(the_ack_writer_repeats_inputs_until_confirmed) {
    // ACK-12.
    acked::AckWriter<int> w(3);
    CHECK_EQ(w.push(10), 1u);
    CHECK_EQ(w.push(11), 2u);
    CHECK_EQ(w.push(12), 3u);
    CHECK_EQ(w.push(13), 4u);
    CHECK_EQ(w.pending().size(), size_t{3});
    CHECK_EQ(w.pending().front().first, 2u);
    w.confirm(3);
    CHECK_EQ(w.pending().size(), size_t{1});
    CHECK_EQ(w.pending().front().second, 13);
    acked::AckWriter<int> big(1000);
    for (int i = 0; i < 300; ++i) {
        big.push(i);
    }
    CHECK_EQ(big.pending().size(), size_t{255});
}

// ---- nothing allocated once warm ----

TEST(a_warm_delivery_allocates_nothing) {
    // A steady world of 200 entities, 50 of which change every tick, with an event a tick.
    Encoder enc(Held{});
    std::vector<std::vector<uint8_t>> frames;
    std::vector<std::pair<uint16_t, Rec>> recs;
    for (uint16_t id = 1; id <= 200; ++id) {
        recs.emplace_back(id, Rec{0, 1, id % 2 == 0});
    }
    for (uint32_t t = 1; t <= 400; ++t) {
        for (size_t k = 0; k < 50; ++k) {
            Rec& r = recs[(t * 50 + k) % recs.size()].second;
            r.v += 1;
            r.measured = t;
        }
        frames.push_back(enc.encode(t, one(recs), {1}).value().bytes);
        enc.on_ack(t, t, false, 0, NO_INPUTS, same);
    }
    Decoder dec;
    size_t shown = 0;
    for (size_t i = 0; i < 100; ++i) {
        shown += (dec.deliver(frames[i]).kind == Kind::shown ? 1u : 0u);
    }
    const size_t before = g_allocations;
    for (size_t i = 100; i < frames.size(); ++i) {
        shown += (dec.deliver(frames[i]).kind == Kind::shown ? 1u : 0u);
    }
    CHECK_EQ(g_allocations - before, size_t{0});
    CHECK_EQ(shown, frames.size());
    CHECK_EQ(dec.state_hash(), acked::server_check<Toy>(one(recs)));
}

}  // namespace

int main() { return check::run_all(); }
