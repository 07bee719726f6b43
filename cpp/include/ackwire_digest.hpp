// Order-independent set digests and the sequence window of delta streaming (`docs/spec/delta.md`),
// bit for bit as DELTA-3 to DELTA-6 define them, so that plaza, Rust, TypeScript and C++ peers can
// check each other: SlotKey, mix64, SetDigest, AckWindow and Agreement (the Rust codec's digest.rs,
// delta/slot.rs, delta/ack.rs and delta/agreement.rs).
//
// DELTA-3: SlotKey = (index << 16) | generation, a u32 index and a u16 generation. DELTA-4:
// mix64 is the SplitMix64 finalizer. DELTA-5: SetDigest, a wrapping sum of mix64 and a wrapping
// count. DELTA-6, DELTA-7: AckWindow, the newest u64 sequence and a 64-bit mask whose bit i means
// newest - 1 - i arrived, and contiguous_base(first). SRV-1: both ends of a delta stream compute
// these alike, which is why they are pinned bit for bit.
//
// Pure arithmetic on unsigned integers (wrapping by the language's rules): no allocation, no
// clock, no undefined behaviour on any input.

#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace ackwire {
namespace digest {

/// The SplitMix64 finalizer after adding the golden gamma: add 0x9E3779B97F4A7C15, then x ^= x >>
/// 30, x *= 0xBF58476D1CE4E5B9, x ^= x >> 27, x *= 0x94D049BB133111EB, x ^= x >> 31, all wrapping
/// (DELTA-3 to DELTA-6). mix64(0) == 0xE220A8397B1DCDAF.
constexpr uint64_t mix64(uint64_t key) {
    uint64_t x = key + 0x9E3779B97F4A7C15u;
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBu;
    x ^= x >> 31;
    return x;
}

/// The key of an occupant: (index << 16) | generation.
constexpr uint64_t slot_key(uint32_t index, uint16_t generation) {
    return (static_cast<uint64_t>(index) << 16) | generation;
}

/// An entity's slot and its occupant's generation, packed into the u64 a SetDigest hashes.
struct SlotKey {
    /// The slot.
    uint32_t index = 0;
    /// The occupant's generation.
    uint16_t generation = 0;

    /// (index << 16) | generation.
    constexpr uint64_t encode() const { return slot_key(index, generation); }

    /// The index and generation of `key`: bits 16 to 47 and 0 to 15 (higher bits are dropped,
    /// as the Rust codec's truncating casts drop them).
    static constexpr SlotKey decode(uint64_t key) {
        return SlotKey{static_cast<uint32_t>(key >> 16), static_cast<uint16_t>(key & 0xFFFFu)};
    }

    /// The same slot with generation 0, for a mirror that keeps no generations.
    constexpr SlotKey ungenerational() const { return SlotKey{index, 0}; }

    friend constexpr bool operator==(SlotKey a, SlotKey b) {
        return a.index == b.index && a.generation == b.generation;
    }
    friend constexpr bool operator!=(SlotKey a, SlotKey b) { return !(a == b); }
    friend constexpr bool operator<(SlotKey a, SlotKey b) { return a.encode() < b.encode(); }
};

/// A wrapping u64 sum of mix64(key) and a wrapping u32 count; its digest is
/// sum ^ mix64(count). Order-independent, and a key inserted then removed leaves no trace.
class SetDigest {
public:
    /// The digest of `keys`, an iterable of u64.
    template <typename Keys>
    static SetDigest from_keys(const Keys& keys) {
        SetDigest d;
        for (uint64_t k : keys) {
            d.insert(k);
        }
        return d;
    }

    /// Adds `key`.
    void insert(uint64_t key) {
        sum_ += mix64(key);
        count_ += 1u;
    }

    /// Takes `key` out (it must have been inserted for the digest to mean a set).
    void remove(uint64_t key) {
        sum_ -= mix64(key);
        count_ -= 1u;
    }

    /// Back to the empty set.
    void clear() { *this = SetDigest(); }

    /// The keys counted (wrapping).
    uint32_t len() const { return count_; }

    /// sum ^ mix64(count).
    uint64_t digest() const { return sum_ ^ mix64(count_); }

    friend bool operator==(const SetDigest& a, const SetDigest& b) {
        return a.sum_ == b.sum_ && a.count_ == b.count_;
    }

private:
    uint64_t sum_ = 0;
    uint32_t count_ = 0;
};

/// The sequences an AckWindow covers behind its newest.
constexpr uint64_t WINDOW = 64;

/// Which recent sequences arrived: the newest and a 64-bit mask whose bit i means newest - 1 - i
/// arrived (what a `delta_ack` carries).
class AckWindow {
public:
    /// A window that has seen nothing.
    AckWindow() = default;

    /// The window a `delta_ack` describes.
    static AckWindow from_encoded(uint64_t newest, uint64_t mask) {
        AckWindow w;
        w.newest_ = newest;
        w.mask_ = mask;
        w.started_ = true;
        return w;
    }

    /// (newest, mask), or nothing before the first sequence.
    std::optional<std::pair<uint64_t, uint64_t>> encode() const {
        if (!started_) {
            return std::nullopt;
        }
        return std::make_pair(newest_, mask_);
    }

    /// Records `seq`; whether it was new.
    bool observe(uint64_t seq) {
        if (!started_) {
            *this = from_encoded(seq, 0);
            return true;
        }
        if (seq > newest_) {
            const uint64_t shift = seq - newest_;
            // A shift of exactly WINDOW keeps the old newest in the last bit; one more drops it.
            const uint64_t moved = shift >= 64 ? 0 : mask_ << shift;
            mask_ = shift <= WINDOW ? (moved | (uint64_t{1} << (shift - 1))) : 0;
            newest_ = seq;
            return true;
        }
        if (seq == newest_) {
            return false;
        }
        const uint64_t back = newest_ - seq;
        if (back > WINDOW) {
            return false;
        }
        const uint64_t bit = uint64_t{1} << (back - 1);
        const bool fresh = (mask_ & bit) == 0;
        mask_ |= bit;
        return fresh;
    }

    /// The newest sequence seen.
    std::optional<uint64_t> newest() const {
        return started_ ? std::optional<uint64_t>(newest_) : std::nullopt;
    }

    /// The mask behind the newest.
    uint64_t mask() const { return mask_; }

    /// Whether `seq` arrived, as far as the window remembers.
    bool contains(uint64_t seq) const {
        if (!started_ || seq > newest_) {
            return false;
        }
        if (seq == newest_) {
            return true;
        }
        const uint64_t back = newest_ - seq;
        return back <= WINDOW && (mask_ & (uint64_t{1} << (back - 1))) != 0;
    }

    /// From `first`, the last sequence of the run held without a gap; nothing when `first` is
    /// not held.
    std::optional<uint64_t> contiguous_base(uint64_t first) const {
        if (!contains(first)) {
            return std::nullopt;
        }
        uint64_t base = first;
        while (base < newest_ && contains(base + 1)) {
            base += 1;
        }
        return base;
    }

    /// Back to a window that has seen nothing.
    void reset() { *this = AckWindow(); }

private:
    uint64_t newest_ = 0;
    uint64_t mask_ = 0;
    bool started_ = false;
};

/// The outcome of comparing the digest a mirror reports with the digest of the state the server
/// believes it holds (SRV-1: one type both sides share).
struct Agreement {
    /// Agrees, disagrees, or was not checked.
    enum class Kind { agrees, disagrees, unchecked };
    /// Which.
    Kind kind = Kind::unchecked;
    /// The digest expected, for `disagrees`.
    uint64_t expected = 0;
    /// The digest reported, for `disagrees`.
    uint64_t reported = 0;

    /// `agrees` when the two are equal, else `disagrees` with both.
    static Agreement compare(uint64_t expected_digest, uint64_t reported_digest) {
        if (expected_digest == reported_digest) {
            return Agreement{Kind::agrees, 0, 0};
        }
        return Agreement{Kind::disagrees, expected_digest, reported_digest};
    }

    /// Whether the digests disagreed.
    bool is_disagreement() const { return kind == Kind::disagrees; }
};

}  // namespace digest
}  // namespace ackwire
