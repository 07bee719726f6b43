// ackwire_range.hpp: the adaptive binary range coder the coded profile of issue 39 codes its
// fields with (docs/perf/coding.md says why this one): LZMA's coder, in integer arithmetic that
// every language reproduces byte for byte. The port of rt/src/range.rs, name for name and error
// for error; vectors/coder/range_coder_cases.txt holds every runtime to the same streams.
//
// - A Prob is the chance that the next bit is 0, in 4096ths, 1 to 4095. Coding a bit with
//   RangeEncoder::bit moves it a sixteenth of the way towards the bit seen; the decoder moves its
//   copy the same way, so both stay equal as long as they start equal (a frame starts from
//   trained tables and adapts within itself only).
// - The state is a 32-bit range and a 33-bit low; a byte leaves whenever the range falls under
//   2^24, a carry travelling back through a cached byte and its run of `0xff`.
// - The stream ends with the interval's bottom, flushed whole, and drops what a decoder can
//   supply: the first byte (always 0) and up to MAX_IMPLICIT_ZEROS zero bytes at its end, which
//   the decoder reads back as zeros.
//
// Untrusted input: the decoder allocates nothing and reads at most MAX_IMPLICIT_ZEROS bytes past
// the end before it refuses the stream as truncated; each bit costs at most two byte reads, and
// the caller's layout bounds the bits, so no input makes it spin. A stream is canonical (what the
// encoder writes, and only that): RangeDecoder::finish refuses bytes the decode did not reach and
// a last zero byte the encoder would have dropped, and a code outside its range (which no encoder
// writes) is refused at the bit that finds it.
//
// Errors as everywhere in the runtime (ackwire_runtime.hpp): every step returns true when it
// succeeded, and a failed one records its error (RangeDecoder::error(), RangeEncoder::error())
// and returns false. Nothing throws on bad input.

#pragma once

#include "ackwire_runtime.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ackwire {
namespace range {

/// Bits of a probability's scale: 4096ths.
inline constexpr uint32_t PROB_BITS = 12;
/// Each coded bit moves its probability `1 / 2^ADAPT_SHIFT` of the way.
inline constexpr uint32_t ADAPT_SHIFT = 4;
/// The most zero bytes the encoder drops from a stream's end, and so the most a decoder reads
/// past the end.
inline constexpr size_t MAX_IMPLICIT_ZEROS = 4;

namespace detail {
/// The range is renormalised, a byte at a time, whenever it falls under this.
inline constexpr uint32_t TOP = uint32_t{1} << 24;
inline constexpr uint32_t PROB_ONE = uint32_t{1} << PROB_BITS;
}  // namespace detail

/// The chance that the next bit is 0, in 4096ths: 1 to 4095, so that neither bit is ever
/// impossible.
class Prob {
public:
    /// Even odds.
    static const Prob HALF;
    /// The least chance of a 0.
    static const Prob MIN;
    /// The greatest chance of a 0.
    static const Prob MAX;

    /// Even odds (what a std::array of them holds before it is filled).
    constexpr Prob() : p_(uint16_t{1} << (PROB_BITS - 1)) {}

    /// `p` 4096ths, or none outside 1 to 4095.
    static constexpr std::optional<Prob> of(uint16_t p) {
        if (p >= 1 && p < detail::PROB_ONE) {
            return Prob(p);
        }
        return std::nullopt;
    }

    /// Its 4096ths.
    constexpr uint16_t get() const { return p_; }

    /// Moved a sixteenth of the way towards `bit`. It never leaves 1 to 4095: a step is
    /// rounded down, so it stops short of either end.
    void adapt(bool bit) {
        if (bit) {
            p_ = static_cast<uint16_t>(p_ - (p_ >> ADAPT_SHIFT));
        } else {
            p_ = static_cast<uint16_t>(p_ + ((detail::PROB_ONE - p_) >> ADAPT_SHIFT));
        }
    }

    /// Where the range splits: the 0s below, the 1s from here.
    constexpr uint32_t bound(uint32_t range) const { return (range >> PROB_BITS) * p_; }

    /// The same chance.
    friend constexpr bool operator==(Prob a, Prob b) { return a.p_ == b.p_; }
    /// Another chance.
    friend constexpr bool operator!=(Prob a, Prob b) { return a.p_ != b.p_; }

private:
    explicit constexpr Prob(uint16_t p) : p_(p) {}

    uint16_t p_;
};

inline constexpr Prob Prob::HALF = Prob(uint16_t{1} << (PROB_BITS - 1));
inline constexpr Prob Prob::MIN = Prob(1);
inline constexpr Prob Prob::MAX = Prob(static_cast<uint16_t>(detail::PROB_ONE - 1));

/// The first bits of a field whose probabilities depend on the bits before them.
inline constexpr unsigned TREE_BITS = 8;
/// Slots of a BitTree: a binary tree over a field's first TREE_BITS bits (slot `1 << i | prefix`
/// for bit `i`, the bits before it as the prefix; slot 0 unused) and one slot for each bit
/// after, up to 64.
inline constexpr size_t TREE_SLOTS = (size_t{1} << TREE_BITS) + 64;

/// The probabilities of one field's bits, coded least significant first: a binary tree over the
/// first TREE_BITS (each bit's probability chosen by the bits before it) and one per bit
/// position after.
class BitTree {
public:
    /// Every slot at `p`.
    explicit BitTree(Prob p) { probs_.fill(p); }

    /// Slots from a trained table, the `len` at `slots`, TREE_SLOTS of them in slot order; none
    /// if the table has another length.
    static std::optional<BitTree> from_slots(const Prob* slots, size_t len) {
        if (slots == nullptr || len != TREE_SLOTS) {
            return std::nullopt;
        }
        BitTree tree(Prob::HALF);
        for (size_t i = 0; i < TREE_SLOTS; ++i) {
            tree.probs_[i] = slots[i];
        }
        return tree;
    }

    /// The slots, in slot order.
    const std::array<Prob, TREE_SLOTS>& slots() const { return probs_; }

    /// The slot of bit `i` of a field whose lower bits are `prefix` (a static model codes each
    /// bit under `slots()[slot(i, prefix)]` itself).
    static constexpr size_t slot(unsigned i, uint64_t prefix) {
        if (i < TREE_BITS) {
            return (size_t{1} << i) | (static_cast<size_t>(prefix) & ((size_t{1} << i) - 1));
        }
        return (size_t{1} << TREE_BITS) + i;
    }

private:
    std::array<Prob, TREE_SLOTS> probs_;

    friend class RangeEncoder;
    friend class RangeDecoder;
};

/// Codes bits into a stream; RangeEncoder::finish ends it. Not copyable: it owns the error its
/// writes stop at.
class RangeEncoder : public rt::WriteErrors {
public:
    /// An empty stream.
    RangeEncoder() : WriteErrors(&error_) {}

    RangeEncoder(const RangeEncoder&) = delete;
    RangeEncoder& operator=(const RangeEncoder&) = delete;

    /// `value` under `prob`, which then moves towards it.
    void bit(Prob& prob, bool value) {
        put(prob, value);
        prob.adapt(value);
    }

    /// `value` under `prob`, which stays as it is (a static model).
    void bit_static(Prob prob, bool value) { put(prob, value); }

    /// The low `width` bits of `value` (0 to 64 of them), least significant first, under
    /// `tree`'s slots, which adapt. A value wider than `width` is refused as over width.
    bool bits(BitTree& tree, unsigned width, uint64_t value) {
        if (width > 64 || (width < 64 && (value >> width) != 0)) {
            return fail(rt::ErrorKind::over_width);
        }
        for (unsigned i = 0; i < width; ++i) {
            bit(tree.probs_[BitTree::slot(i, value)], ((value >> i) & 1) == 1);
        }
        return true;
    }

    /// Ends the stream and appends it to `out`: the interval's bottom flushed, the first byte
    /// (always 0) and up to MAX_IMPLICIT_ZEROS trailing zero bytes dropped. The encoder is
    /// spent.
    void finish(std::vector<uint8_t>& out) {
        for (int i = 0; i < 5; ++i) {
            shift_low();
        }
        // The interval starts within [0, 2^32) and only narrows, so nothing carries into the
        // first byte: it is the initial cache, 0.
        const size_t len = out_.size();
        size_t end = len;
        while (end > 1 && len - end < MAX_IMPLICIT_ZEROS && out_[end - 1] == 0) {
            --end;
        }
        if (end > 1) {
            const auto first = out_.begin() + 1;
            out.insert(out.end(), first, first + static_cast<std::ptrdiff_t>(end - 1));
        }
    }

private:
    /// The top byte of `low` leaves, unless it may still take a carry.
    void shift_low() {
        if (low_ < 0xFF000000u || low_ > 0xFFFFFFFFu) {
            const auto carry = static_cast<uint8_t>(low_ >> 32);
            uint8_t byte = cache_;
            while (cache_size_ > 0) {
                out_.push_back(static_cast<uint8_t>(byte + carry));
                byte = 0xFF;
                --cache_size_;
            }
            cache_ = static_cast<uint8_t>(low_ >> 24);
        }
        ++cache_size_;
        low_ = (low_ & 0x00FFFFFFu) << 8;
    }

    void put(Prob prob, bool value) {
        const uint32_t bound = prob.bound(range_);
        if (value) {
            low_ += bound;
            range_ -= bound;
        } else {
            range_ = bound;
        }
        while (range_ < detail::TOP) {
            range_ <<= 8;
            shift_low();
        }
    }

    rt::EncodeError error_{rt::ErrorKind::over_width};
    /// The bottom of the interval; bit 32 is a carry not yet added to the cached byte.
    uint64_t low_ = 0;
    uint32_t range_ = 0xFFFFFFFFu;
    /// The byte waiting for a possible carry, and how many bytes wait with it (it and the
    /// `0xff`s after it, which a carry turns to `0x00`).
    uint8_t cache_ = 0;
    uint64_t cache_size_ = 1;
    std::vector<uint8_t> out_;
};

/// Reads bits back from a stream, refusing one that is not what an encoder writes. Not
/// copyable: it owns the error its reads stop at.
class RangeDecoder : public rt::ReadErrors {
public:
    /// A decoder over the `len` bytes at `data` (which may be null when `len` is 0), which start
    /// at byte `base` of the frame. RangeDecoder::start reads its first four bytes.
    RangeDecoder(const uint8_t* data, size_t len, size_t base)
        : ReadErrors(&error_), data_(data), len_(data != nullptr ? len : 0), base_(base) {}

    RangeDecoder(const RangeDecoder&) = delete;
    RangeDecoder& operator=(const RangeDecoder&) = delete;

    /// Reads the first four bytes (zeros past the end): the step of Rust's RangeDecoder::new
    /// that can fail, made once before any bit.
    bool start() {
        for (int i = 0; i < 4; ++i) {
            uint8_t b = 0;
            if (!next(b)) {
                return false;
            }
            code_ = (code_ << 8) | b;
        }
        return check();
    }

    /// A bit under `prob`, which then moves towards it.
    bool bit(Prob& prob, bool& out) {
        if (!get(prob, out)) {
            return false;
        }
        prob.adapt(out);
        return true;
    }

    /// A bit under `prob`, which stays as it is.
    bool bit_static(Prob prob, bool& out) { return get(prob, out); }

    /// `width` bits (0 to 64), least significant first, under `tree`'s slots, which adapt.
    bool bits(BitTree& tree, unsigned width, uint64_t& out) {
        if (width > 64) {
            return fail(rt::ErrorKind::over_width, base_ + std::min(at_, len_));
        }
        uint64_t v = 0;
        for (unsigned i = 0; i < width; ++i) {
            bool one = false;
            if (!bit(tree.probs_[BitTree::slot(i, v)], one)) {
                return false;
            }
            if (one) {
                v |= uint64_t{1} << i;
            }
        }
        out = v;
        return true;
    }

    /// The byte of the frame the decoder has reached, for the position of a fault found in what
    /// it decoded.
    size_t offset() const { return base_ + std::min(at_, len_); }

    /// Ends a stream that was zero-padded to a floor (the coded profile's CODE-5), once every
    /// bit is read: every byte not reached must be 0 (else trailing bytes, at the first that is
    /// not), and the code must be the interval's bottom (else not canonical). With finish()'s
    /// rules for a stream above its floor, a padded stream that passes is the one the encoder
    /// writes and pads. `len` is then the stream's length.
    bool finish_padded(size_t& len) {
        for (size_t i = at_; i < len_; ++i) {
            if (data_[i] != 0) {
                return fail(rt::ErrorKind::trailing_bytes, base_ + i);
            }
        }
        if (code_ != 0) {
            const size_t reached = std::min(at_, len_);
            return fail(rt::ErrorKind::non_canonical, base_ + (reached > 0 ? reached - 1 : 0));
        }
        len = len_;
        return true;
    }

    /// Ends the stream once every bit the layout holds is read: every byte must have been
    /// reached (else trailing bytes), the code must be the interval's bottom, which is what the
    /// encoder flushes, and a last zero byte is only the encoder's when it dropped as many zeros
    /// as it may (else not canonical). A stream that passes is the one stream the encoder
    /// writes for the bits read. `len` is then the stream's length.
    bool finish(size_t& len) {
        if (at_ < len_) {
            return fail(rt::ErrorKind::trailing_bytes, base_ + at_);
        }
        if (code_ != 0) {
            return fail(rt::ErrorKind::non_canonical, base_ + (len_ > 0 ? len_ - 1 : 0));
        }
        if (len_ > 0 && data_[len_ - 1] == 0 && at_ - len_ < MAX_IMPLICIT_ZEROS) {
            return fail(rt::ErrorKind::non_canonical, base_ + len_ - 1);
        }
        len = len_;
        return true;
    }

private:
    bool fail(rt::ErrorKind kind, size_t offset) {
        error_ = rt::DecodeError(kind, offset);
        return false;
    }

    /// The next byte; past the end, a zero the encoder dropped, at most MAX_IMPLICIT_ZEROS of
    /// them.
    bool next(uint8_t& out) {
        if (at_ < len_) {
            out = data_[at_];
        } else if (at_ - len_ < MAX_IMPLICIT_ZEROS) {
            out = 0;
        } else {
            return fail(rt::ErrorKind::truncated, base_ + len_);
        }
        ++at_;
        return true;
    }

    /// The code lies inside the range, as every encoder leaves it.
    bool check() {
        return code_ < range_ || fail(rt::ErrorKind::non_canonical, base_ + std::min(at_, len_));
    }

    bool get(Prob prob, bool& out) {
        const uint32_t bound = prob.bound(range_);
        if (code_ < bound) {
            range_ = bound;
            out = false;
        } else {
            code_ -= bound;
            range_ -= bound;
            out = true;
        }
        while (range_ < detail::TOP) {
            range_ <<= 8;
            uint8_t b = 0;
            if (!next(b)) {
                return false;
            }
            code_ = (code_ << 8) | b;
        }
        return check();
    }

    rt::DecodeError error_{rt::ErrorKind::truncated, 0};
    uint32_t code_ = 0;
    uint32_t range_ = 0xFFFFFFFFu;
    const uint8_t* data_;
    size_t len_;
    /// Bytes taken, those past the end (read as zeros) included.
    size_t at_ = 0;
    /// Offset of the stream within the frame, for error positions.
    size_t base_;
};

}  // namespace range
}  // namespace ackwire
