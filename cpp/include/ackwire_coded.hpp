// ackwire_coded.hpp: the coded values of kind 13's body (docs/spec/coded.md): what a generated
// coded frame writes its changes' values into and reads them back from, over the range coder
// (ackwire_range.hpp), and the training counts of its tables. The port of rt/src/coded.rs, name
// for name and error for error; vectors/coder/coded_cases.txt holds every runtime to the same
// bodies.
//
// - A value v of at most W bits is coded under a model of model_slots(W) slots starting at slot
//   `at` of the frame's tables: its bit length through a bit tree, then the bits below its
//   highest one (CODE-6, CODE-7, CODE-8). Every bit goes through RangeEncoder::bit, so the slots
//   adapt within the frame (CODE-9); the caller copies the tables for each frame.
// - The body is `u16 coded_len` and the stream, zero-padded to floor_len of the changes (CODE-4,
//   CODE-5). CodedDecoder::start refuses a coded_len under the floor before it decodes anything
//   (`count_too_large`: the taxonomy has no `over_limit`, and this is a count larger than the
//   bytes hold), CodedDecoder::value a bit length over the width (`over_width`), and
//   CodedDecoder::finish anything but the stream the encoder writes.
// - A model's slots past the tables it is given are refused (`over_width`), never indexed.
//
// Within a model, the bits below the first t are coded most significant first, each under the
// next slot of its length's block: the first of them under the block's first position slot.
//
// The basis a generated coded frame is predicted from (CodedBasis, NoBasis, CodedBasisTicks:
// CODE-2, CODE-3, CODE-13, CODE-14) is the session machines' to give (ackwire_acked.hpp).
//
// Errors as everywhere in the runtime (ackwire_runtime.hpp): every step returns true when it
// succeeded, and a failed one records its error (error()) and returns false. Nothing throws,
// nothing is indexed without a check, and the decoder allocates nothing.

#pragma once

#include "ackwire_range.hpp"
#include "ackwire_runtime.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ackwire {
namespace coded {

/// The least bits a change takes in the stream (CODE-4): a body's `coded_len` is at least
/// `ceil(changed_count × 10 / 8)`, which bounds the changes a decoder allocates for by its input.
inline constexpr size_t CODED_FLOOR_BITS = 12;

/// The least `coded_len` of a body of `changed_count` changes: `ceil(changed_count × 10 / 8)`
/// (CODE-4), saturating.
inline constexpr size_t floor_len(size_t changed_count) {
    constexpr size_t most = std::numeric_limits<size_t>::max();
    if (changed_count > most / CODED_FLOOR_BITS) {
        return most / 8 + 1;
    }
    const size_t bits = changed_count * CODED_FLOOR_BITS;
    return bits / 8 + (bits % 8 != 0 ? 1 : 0);
}

namespace detail {

/// The bit length of `v`: 0 for 0, else the position of its highest one bit plus one.
inline constexpr unsigned bit_len(uint64_t v) {
    unsigned n = 0;
    while (v != 0) {
        v >>= 1;
        ++n;
    }
    return n;
}

/// Where the block of bit length `l` (2 and up) starts, past the length tree: the sizes of the
/// blocks of 2 to `l - 1`, each `2^t - 1` tree slots and `l - 1 - t` position slots,
/// `t = min(l - 1, 3)` (1, 3, then `7 + (l - 4)` from 4 on).
inline constexpr size_t block_offset(size_t l) {
    if (l <= 2) {
        return 0;
    }
    if (l == 3) {
        return 1;
    }
    // 4 for lengths 2 and 3, then the sum of `j + 3` for j from 4 to l - 1.
    return 4 + (l - 1) * l / 2 - 6 + 3 * (l - 4);
}

}  // namespace detail

/// The slots of a model of `w` bits (CODE-8; `w` at most 255, as Rust's u8): the length tree's
/// `2^k - 1` (`k` the bit length of `w`), then for each bit length `L` from 2 to `w` its tree's
/// `2^t - 1` and its `L - 1 - t` position slots, `t = min(L - 1, 3)`. 0 for `w = 0`, 2388 for
/// 64.
inline constexpr size_t model_slots(uint8_t w) {
    const size_t tree = (size_t{1} << detail::bit_len(w)) - 1;
    return w < 2 ? tree : tree + detail::block_offset(size_t{w} + 1);
}

namespace detail {

/// The slots of a model of `w` bits starting at `at`, checked against the `len` slots of the
/// tables before any is touched.
inline constexpr bool model_fits(size_t at, unsigned w, size_t len) {
    return w <= 64 && at <= len && model_slots(static_cast<uint8_t>(w)) <= len - at;
}

/// How a walk ended.
enum class Walk { ok, failed, over_width };

/// Walks the bits of a value of a model of `w` bits (at most 64) whose slots start at `at` and
/// fit the tables: `bit(slot, wanted, got)` codes one bit under `slot` and sets `got` to the bit
/// coded (the encoder `wanted`, the decoder the one it reads), returning false when it failed;
/// the value is built from the bits got into `out`. `v` is what the encoder codes (0 for the
/// decoder). A bit length over `w`, which only a decoder meets, is Walk::over_width.
template <typename Bit>
Walk walk(size_t at, unsigned w, uint64_t v, Bit&& bit, uint64_t& out) {
    const unsigned k = bit_len(w);
    const unsigned want_len = bit_len(v);
    // The length, most significant bit first, down the tree from node 1.
    size_t m = 1;
    for (unsigned i = k; i-- > 0;) {
        bool b = false;
        if (!bit(at + m - 1, ((want_len >> i) & 1u) == 1, b)) {
            return Walk::failed;
        }
        m = 2 * m + (b ? 1 : 0);
    }
    const size_t l = m - (size_t{1} << k);
    if (l > w) {
        return Walk::over_width;
    }
    if (l <= 1) {
        out = l;
        return Walk::ok;
    }
    const size_t block = at + (size_t{1} << k) - 1 + block_offset(l);
    // The first t bits below the highest one, through the block's tree.
    const size_t t = l - 1 < 3 ? l - 1 : 3;
    m = 1;
    for (size_t i = 0; i < t; ++i) {
        const size_t pos = l - 2 - i;
        bool b = false;
        if (!bit(block + m - 1, ((v >> pos) & 1u) == 1, b)) {
            return Walk::failed;
        }
        m = 2 * m + (b ? 1 : 0);
    }
    uint64_t value = (uint64_t{1} << (l - 1)) | (uint64_t{m - (size_t{1} << t)} << (l - 1 - t));
    // The rest, each under a slot of its own.
    const size_t positions = block + (size_t{1} << t) - 1;
    for (size_t j = 0; j < l - 1 - t; ++j) {
        const size_t pos = l - 2 - t - j;
        bool b = false;
        if (!bit(positions + j, ((v >> pos) & 1u) == 1, b)) {
            return Walk::failed;
        }
        if (b) {
            value |= uint64_t{1} << pos;
        }
    }
    out = value;
    return Walk::ok;
}

}  // namespace detail

/// `v × num / den` rounded to the nearest integer, halves away from zero (CODE-13), saturating
/// at int64_t's ends; a `den` of 0 is taken as 1.
inline constexpr int64_t extrapolate(int64_t v, uint32_t num, uint32_t den) {
    const uint64_t d = den > 0 ? den : 1;
    // |v| (2^63 at most) × num / d, as q × num + r × num / d with r < d: every product below
    // fits 64 bits but q × num, which is checked.
    const uint64_t a = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    const uint64_t q = a / d;
    const uint64_t rn = (a % d) * num;
    // Positive results end at 2^63 - 1, negative ones at -2^63.
    const uint64_t limit = v < 0 ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
    uint64_t m = limit;
    if (num == 0 || q <= limit / num) {
        m = q * num + rn / d;
        const uint64_t rest = rn % d;
        // A half or more rounds away from zero.
        if (rest >= d - rest) {
            ++m;
        }
        m = m < limit ? m : limit;
    }
    return v < 0 ? rt::to_signed(uint64_t{0} - m) : static_cast<int64_t>(m);
}

/// Maps a signed value onto an unsigned one: (n << 1) ^ (n >> 63) (the runtime's).
using rt::zigzag;
/// The inverse of zigzag() (the runtime's).
using rt::unzigzag;

/// What a generated coded frame writes its values into: the encoder, or the counts that train its
/// tables (CODE-17). Its error() is the one its last failed step recorded.
class CodedSink : public rt::WriteErrors {
public:
    virtual ~CodedSink() = default;

    /// `v` (< 2^w) under the model whose slots start at `at` (CODE-7).
    virtual bool value(size_t at, unsigned w, uint64_t v) = 0;

    /// `v` as its zigzag code (`w` bits); Rust's `signed`, a keyword here.
    bool signed_value(size_t at, unsigned w, int64_t v) { return value(at, w, zigzag(v)); }

protected:
    explicit CodedSink(rt::EncodeError* slot) : WriteErrors(slot) {}
};

/// Codes a frame's values under its tables (a copy for this frame: they adapt) and ends the body
/// (CODE-4, CODE-5). Not copyable: it owns the error its steps stop at.
class CodedEncoder final : public CodedSink {
public:
    /// An encoder over the `len` slots at `probs`: the frame's tables, copied by the caller (null
    /// when `len` is 0).
    CodedEncoder(range::Prob* probs, size_t len)
        : CodedSink(&error_), probs_(probs), len_(probs != nullptr ? len : 0) {}

    CodedEncoder(const CodedEncoder&) = delete;
    CodedEncoder& operator=(const CodedEncoder&) = delete;

    /// `v` (< 2^w) under the model whose slots start at `at` (CODE-7): a width over 64, a value
    /// over its width or slots past the tables are over width, refused before any bit is coded.
    bool value(size_t at, unsigned w, uint64_t v) override {
        const bool fits = w <= 64 && (w == 64 || (v >> w) == 0);
        if (!fits || !detail::model_fits(at, w, len_)) {
            return fail(rt::ErrorKind::over_width);
        }
        uint64_t coded = 0;
        const auto bit = [this](size_t slot, bool wanted, bool& got) {
            enc_.bit(probs_[slot], wanted);
            got = wanted;
            return true;
        };
        return detail::walk(at, w, v, bit, coded) == detail::Walk::ok
            || fail(rt::ErrorKind::over_width);
    }

    /// Appends `u16 coded_len` then the stream, zero-padded to floor_len(changed_count) (CODE-4,
    /// CODE-5). A body longer than a `u16` counts is refused as `count_too_large`, and `out` is
    /// left as it was. The encoder is spent.
    bool finish(size_t changed_count, std::vector<uint8_t>& out) {
        const size_t start = out.size();
        out.push_back(0);
        out.push_back(0);
        enc_.finish(out);
        const size_t stream = out.size() - start - 2;
        const size_t least = floor_len(changed_count);
        const size_t coded_len = stream > least ? stream : least;
        if (coded_len > 0xFFFF) {
            out.resize(start);
            return fail(rt::ErrorKind::count_too_large);
        }
        out.resize(start + 2 + coded_len, 0);
        out[start] = static_cast<uint8_t>(coded_len & 0xFF);
        out[start + 1] = static_cast<uint8_t>(coded_len >> 8);
        return true;
    }

private:
    rt::EncodeError error_{rt::ErrorKind::over_width};
    range::Prob* probs_;
    size_t len_;
    range::RangeEncoder enc_;
};

/// The 0s and 1s coded under each slot, walking the bits CodedEncoder would code with none of its
/// adaptation: what `ackwire train` sums over recorded frames (CODE-17).
class SlotCounts final : public CodedSink {
public:
    /// No bits yet, over `slots` slots.
    explicit SlotCounts(size_t slots) : CodedSink(&error_), counts_(slots) {}

    SlotCounts(const SlotCounts& other) : CodedSink(&error_), counts_(other.counts_) {}

    SlotCounts& operator=(const SlotCounts& other) {
        counts_ = other.counts_;
        return *this;
    }

    /// `other`'s counts added to these, slot by slot (growing to the longer of the two),
    /// saturating.
    void add(const SlotCounts& other) {
        if (counts_.size() < other.counts_.size()) {
            counts_.resize(other.counts_.size());
        }
        for (size_t i = 0; i < other.counts_.size(); ++i) {
            for (size_t b = 0; b < 2; ++b) {
                const uint64_t theirs = other.counts_[i][b];
                uint64_t& mine = counts_[i][b];
                mine = theirs > std::numeric_limits<uint64_t>::max() - mine
                    ? std::numeric_limits<uint64_t>::max()
                    : mine + theirs;
            }
        }
    }

    /// Each slot's count of 0s and of 1s, in slot order.
    const std::vector<std::array<uint64_t, 2>>& counts() const { return counts_; }

    /// Trained starting probabilities: p = (c0+1)*4096/(c0+c1+2), rounded down, clamped to
    /// 32..=4064 so that a slot never seen one way can still code it at a bounded cost.
    std::vector<range::Prob> probs() const {
        std::vector<range::Prob> out;
        out.reserve(counts_.size());
        for (const auto& c : counts_) {
            const uint16_t p = trained(c[0], c[1]);
            const uint16_t clamped = p < 32 ? 32 : p > 4064 ? 4064 : p;
            out.push_back(range::Prob::of(clamped).value_or(range::Prob::HALF));
        }
        return out;
    }

    /// (c0+1)*4096/(c0+c1+2) rounded down, exactly: a = c0 + 1 and d = c0 + c1 + 2 take up to
    /// 66 bits, held as (hi, lo); a < d, so the quotient is the first 12 bits of the fraction
    /// a / d, found by long division.
    static constexpr uint16_t trained(uint64_t c0, uint64_t c1) {
        uint64_t lo = c0 + 1;
        uint64_t hi = uint64_t{lo == 0};
        const uint64_t sum = c0 + c1;
        const uint64_t dlo = sum + 2;
        const uint64_t dhi = uint64_t{sum < c0} + uint64_t{dlo < sum};
        unsigned q = 0;
        for (uint32_t i = 0; i < range::PROB_BITS; ++i) {
            hi = (hi << 1) | (lo >> 63);
            lo <<= 1;
            q <<= 1;
            if (hi > dhi || (hi == dhi && lo >= dlo)) {
                const uint64_t borrow = uint64_t{lo < dlo};
                lo -= dlo;
                hi = hi - dhi - borrow;
                q |= 1;
            }
        }
        return static_cast<uint16_t>(q);
    }

    /// Counts the bits of `v` (< 2^w) under the model whose slots start at `at`, as
    /// CodedEncoder::value codes them, with its refusals.
    bool value(size_t at, unsigned w, uint64_t v) override {
        const bool fits = w <= 64 && (w == 64 || (v >> w) == 0);
        if (!fits || !detail::model_fits(at, w, counts_.size())) {
            return fail(rt::ErrorKind::over_width);
        }
        uint64_t coded = 0;
        const auto bit = [this](size_t slot, bool wanted, bool& got) {
            uint64_t& c = counts_[slot][wanted ? 1 : 0];
            if (c != std::numeric_limits<uint64_t>::max()) {
                ++c;
            }
            got = wanted;
            return true;
        };
        return detail::walk(at, w, v, bit, coded) == detail::Walk::ok
            || fail(rt::ErrorKind::over_width);
    }

private:
    rt::EncodeError error_{rt::ErrorKind::over_width};
    std::vector<std::array<uint64_t, 2>> counts_;
};

/// Reads a frame's values back under its tables (a copy for this frame: they adapt), refusing a
/// body that is not the one the encoder writes (CODE-4, CODE-5, CODE-7). Not copyable: it owns
/// the error its reads stop at. Once a read of the stream has failed, every step fails with its
/// error: the stream is not read past a fault.
class CodedDecoder : public rt::ReadErrors {
public:
    /// A decoder under the `len` slots at `probs`: the frame's tables, copied by the caller (null
    /// when `len` is 0). CodedDecoder::start reads the body's head.
    CodedDecoder(range::Prob* probs, size_t len)
        : ReadErrors(&error_), probs_(probs), len_(probs != nullptr ? len : 0) {}

    CodedDecoder(const CodedDecoder&) = delete;
    CodedDecoder& operator=(const CodedDecoder&) = delete;

    /// Reads `u16 coded_len` at `r`, refuses it under floor_len(changed_count) as
    /// `count_too_large` at `coded_len` before anything else is read (CODE-4; the spec's
    /// `over_limit`), and takes the stream's bytes from `r` (`truncated` if fewer remain): the
    /// step of Rust's CodedDecoder::new that can fail. Until it has succeeded, every other step
    /// fails with the error it recorded.
    bool start(rt::Reader& r, size_t changed_count) {
        const size_t at = r.pos();
        uint16_t coded_len = 0;
        if (!r.read_uint(2, false, coded_len)) {
            return fail(r.error().kind, r.error().offset);
        }
        const size_t least = floor_len(changed_count);
        if (coded_len < least) {
            return fail(rt::ErrorKind::count_too_large, at);
        }
        const size_t base = r.pos();
        const uint8_t* bytes = nullptr;
        if (!r.take(coded_len, bytes)) {
            return fail(r.error().kind, r.error().offset);
        }
        dec_.emplace(bytes, coded_len, base);
        if (!dec_->start()) {
            return from_dec();
        }
        at_floor_ = coded_len == least;
        started_ = true;
        return true;
    }

    /// A value of at most `w` bits under the model whose slots start at `at`: a bit length over
    /// `w` is `over_width` (as are a width over 64 and slots past the tables).
    bool value(size_t at, unsigned w, uint64_t& out) {
        if (!started_) {
            return false;
        }
        if (!detail::model_fits(at, w, len_)) {
            return fail(rt::ErrorKind::over_width, dec_->offset());
        }
        range::RangeDecoder& dec = *dec_;
        const auto bit = [this, &dec](size_t slot, bool, bool& got) {
            return dec.bit(probs_[slot], got);
        };
        switch (detail::walk(at, w, 0, bit, out)) {
            case detail::Walk::ok:
                return true;
            case detail::Walk::over_width:
                return fail(rt::ErrorKind::over_width, dec.offset());
            case detail::Walk::failed:
                break;
        }
        return from_dec();
    }

    /// The frame offset of the byte the stream has read up to: where a value's fault (out of its
    /// field's range, an id not ascending) is reported, as near the value as a range coder can
    /// place it (Rust's CodedDecoder::offset). 0 before start() has succeeded.
    size_t offset() const { return dec_ ? dec_->offset() : 0; }

    /// A signed value: value() unzigzagged; Rust's `signed`, a keyword here.
    bool signed_value(size_t at, unsigned w, int64_t& out) {
        uint64_t z = 0;
        if (!value(at, w, z)) {
            return false;
        }
        out = unzigzag(z);
        return true;
    }

    /// Ends the body once every value is read (CODE-5): above the floor, the stream must be
    /// exactly what the encoder writes (RangeDecoder::finish); at the floor, the code must be
    /// the interval's bottom and every byte not reached 0 (`trailing_bytes` at the first that is
    /// not).
    bool finish() {
        if (!started_) {
            return false;
        }
        size_t len = 0;
        const bool ok = at_floor_ ? dec_->finish_padded(len) : dec_->finish(len);
        return ok || from_dec();
    }

private:
    bool fail(rt::ErrorKind kind, size_t offset) {
        error_ = rt::DecodeError(kind, offset);
        return false;
    }

    /// The range decoder's error, as this decoder's.
    bool from_dec() {
        started_ = false;
        return fail(dec_->error().kind, dec_->error().offset);
    }

    rt::DecodeError error_{rt::ErrorKind::truncated, 0};
    range::Prob* probs_;
    size_t len_;
    std::optional<range::RangeDecoder> dec_;
    /// `coded_len` is the floor: the stream may be zero-padded.
    bool at_floor_ = false;
    bool started_ = false;
};

/// What a coded frame's changes are predicted from (CODE-13, CODE-14): the entity's record in
/// the frame's base and in its older snapshot. Implemented by the session machines
/// (ackwire_acked.hpp).
template <typename R>
class CodedBasis {
public:
    virtual ~CodedBasis() = default;

    /// The entity's record in the frame's base, if the base holds it.
    virtual std::optional<R> base(uint16_t eid) const = 0;
    /// The entity's record in the older snapshot, if there is one and it holds the entity.
    virtual std::optional<R> older(uint16_t eid) const = 0;

protected:
    CodedBasis() = default;
    CodedBasis(const CodedBasis&) = default;
    CodedBasis& operator=(const CodedBasis&) = default;
};

/// A basis with nothing in it (a keyframe; tests).
template <typename R>
class NoBasis final : public CodedBasis<R> {
public:
    std::optional<R> base(uint16_t) const override { return std::nullopt; }
    std::optional<R> older(uint16_t) const override { return std::nullopt; }
};

/// What a coded frame's basis is looked up by, read from its prefix before its body (CODE-2,
/// CODE-3): its tick and its base's, whether it is a keyframe, and its `older` distance.
struct CodedBasisTicks {
    /// The frame's tick.
    uint32_t tick = 0;
    /// The tick of the frame's base.
    uint32_t base_tick = 0;
    /// The frame is a keyframe: it has no base.
    bool keyframe = false;
    /// Ticks from the base back to the older snapshot; 0 for none.
    uint8_t older = 0;
};

}  // namespace coded
}  // namespace ackwire
