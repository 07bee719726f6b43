// A minimal test harness for the runtime's own tests, so that they need nothing but a C++17
// compiler: TEST(name) registers a test, CHECK and CHECK_EQ count every assertion, report a
// failed one with its file and line (and both sides, for CHECK_EQ) and let the test go on, and
// run_all() runs every test and ends with `N passed, M failed`.

#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace check {

/// The assertions made so far.
struct Tally {
    size_t passed = 0;
    size_t failed = 0;
};

inline Tally& tally() {
    static Tally t;
    return t;
}

/// A registered test.
struct Case {
    const char* name;
    std::function<void()> body;
};

inline std::vector<Case>& cases() {
    static std::vector<Case> all;
    return all;
}

/// Registers a test at static initialization (what TEST expands to).
struct Registrar {
    Registrar(const char* name, void (*body)()) { cases().push_back(Case{name, body}); }
};

/// How a checked value is printed when a check fails.
inline std::string show(std::string_view v) {
    std::string out = "\"";
    for (const char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(u));
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

inline std::string show(bool v) { return v ? "true" : "false"; }
inline std::string show(const char* v) {
    return v == nullptr ? "(null)" : show(std::string_view(v));
}
inline std::string show(const std::string& v) { return show(std::string_view(v)); }

inline std::string show(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

inline std::string show(float v) { return show(static_cast<double>(v)); }

template <typename T>
std::string show(const T& v) {
    if constexpr (std::is_enum_v<T>) {
        return "enum " + std::to_string(static_cast<long long>(v));
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        return std::to_string(static_cast<long long>(v));
    } else if constexpr (std::is_integral_v<T>) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%llu (0x%llx)", static_cast<unsigned long long>(v),
            static_cast<unsigned long long>(v));
        return buf;
    } else {
        return "(a value that cannot be shown)";
    }
}

template <typename T>
std::string show(const std::optional<T>& v) {
    return v ? "some(" + show(*v) + ")" : "none";
}

template <typename T>
std::string show(const std::vector<T>& v) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
        out += (i > 0 ? ", " : "") + show(v[i]);
    }
    return out + "]";
}

/// Counts one assertion; a failed one is reported with where it was made.
inline bool record(bool ok, const char* file, int line, const std::string& what) {
    if (ok) {
        ++tally().passed;
    } else {
        ++tally().failed;
        std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what.c_str());
    }
    return ok;
}

template <typename A, typename B>
bool equal(const A& a, const B& b, const char* file, int line, const char* sa, const char* sb) {
    const bool ok = a == b;
    if (ok) {
        return record(true, file, line, "");
    }
    return record(false, file, line,
        std::string("CHECK_EQ(") + sa + ", " + sb + ")\n    left:  " + show(a)
            + "\n    right: " + show(b));
}

/// Runs every registered test; the exit status is 0 when every check passed.
inline int run_all() {
    for (const Case& c : cases()) {
        const size_t failed_before = tally().failed;
        c.body();
        if (tally().failed != failed_before) {
            std::fprintf(stderr, "FAILED: %s\n", c.name);
        }
    }
    std::printf("%zu tests, %zu checks\n", cases().size(), tally().passed + tally().failed);
    std::printf("%zu passed, %zu failed\n", tally().passed, tally().failed);
    return tally().failed == 0 && tally().passed > 0 ? 0 : 1;
}

}  // namespace check

#define CHECK_CONCAT2(a, b) a##b
#define CHECK_CONCAT(a, b) CHECK_CONCAT2(a, b)

/// Defines and registers the test `name`.
#define TEST(name)                                                           \
    static void name();                                                      \
    static const check::Registrar CHECK_CONCAT(registrar_, name)(#name, name); \
    static void name()

/// Checks that `cond` holds; evaluates to whether it did.
#define CHECK(cond) check::record(static_cast<bool>(cond), __FILE__, __LINE__, "CHECK(" #cond ")")

/// Checks that `a == b`, printing both when they differ; evaluates to whether they were equal.
#define CHECK_EQ(a, b) check::equal((a), (b), __FILE__, __LINE__, #a, #b)
