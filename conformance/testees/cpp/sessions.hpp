// The testee protocol's session operations (conformance/PROTOCOL.md, "Session operations") over
// the C++ session machines: `open` makes a half by name, the other ops drive it by handle. The
// machines are the runtime's (gen/ackwire_*.hpp), bound to the reference protocol by its
// generated schemas (gen/reference.hpp, gen/reference_{datagram,baseline,delta}.hpp) and its
// presenter (gen/reference/, copied from cpp/reference/ by build.sh); each header under
// halves/ only translates the protocol's JSON (params, world ops, reports) into a half's calls,
// as conformance/src/sessions/ does for the Rust codec.

#pragma once

#include "protocol.hpp"
#include "ackwire_session.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace testee {

using ackwire::json::Value;

/// What a half's method gives: its value, or the message of why it refused the input.
template <typename T>
using Outcome = ackwire::rt::Result<T, std::string>;

/// One open half, as the session ops see it. Time and ticks are arguments.
class Session {
public:
    virtual ~Session() = default;
    /// A server tick passes and the world does `ops` (a client half refuses any op).
    virtual Outcome<bool> advance(uint64_t tick, uint64_t now_ms, const Value& ops) = 0;
    /// The network delivers `frame`; the half's report (compared: PROTOCOL.md "Reports").
    virtual Outcome<Value> deliver(uint64_t now_ms, const std::string& frame,
        const std::vector<uint8_t>& bytes) = 0;
    /// Everything the half wants to send now, in order.
    virtual std::vector<ackwire::session::Transmit> take() = 0;
    /// The FNV-1a 32 of the half's state, or nothing for a half without one.
    virtual std::optional<uint32_t> state_hash() = 0;
};

/// Opens a half from the `params` of `open`, or says what is wrong with them.
using Opener = std::function<Outcome<std::unique_ptr<Session>>(const Value& params)>;

/// The Opener of `Half`, made from the params `parse` reads (or its reason for refusing them).
template <typename Half, typename Params>
Opener opener_of(bool (*parse)(const Value&, Params&, std::string&)) {
    return [parse](const Value& v) -> Outcome<std::unique_ptr<Session>> {
        Params p;
        std::string why;
        if (!parse(v, p, why)) {
            return why;
        }
        return std::unique_ptr<Session>(new Half(p));
    };
}

}  // namespace testee

// The headers of halves/, each needing Session and Opener above.
#include "halves/acked.hpp"
#include "halves/baseline.hpp"
#include "halves/datagram.hpp"
#include "halves/delta.hpp"

namespace testee {

/// Every half this testee implements, by name. Each header of halves/ adds its own here.
inline std::map<std::string, Opener> openers() {
    std::map<std::string, Opener> all;
    // One line per header of halves/, e.g. `add_acked_halves(all);`.
    add_acked_halves(all);
    add_baseline_halves(all);
    add_datagram_halves(all);
    add_delta_halves(all);
    return all;
}

}  // namespace testee
