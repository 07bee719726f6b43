// The tests' harness, shared by the programs test.sh builds (the runtime's tests, test/*.cs, and
// the state bindings' tests, test/reference/*.cs and test/arena/*.cs, which test.sh compiles with
// this file): the failure a check throws, the checks, the runner each Main hands its tests to,
// and a seeded random source. Each test file takes them with `using static Harness;`.

using System;
using System.Collections.Generic;

static class Harness
{
    /// <summary>A check that failed, with what was checked and what was found.</summary>
    public sealed class Failure : Exception
    {
        public Failure(string message) : base(message) { }
    }

    /// <summary>xorshift64, deterministic from its seed: the random records and frames of the state tests.</summary>
    public sealed class Rng
    {
        ulong s;

        public Rng(ulong seed)
        {
            s = seed;
        }

        public ulong Next()
        {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            return s;
        }

        public int Below(int n)
        {
            return (int)(Next() % (ulong)n);
        }

        /// <summary>Any f32, NaNs and infinities too: 32 random bits.</summary>
        public float AnyFloat()
        {
            return BitConverter.ToSingle(BitConverter.GetBytes((uint)Next()), 0);
        }
    }

    /// <summary>Fails unless <paramref name="got"/> equals <paramref name="want"/>.</summary>
    public static void Equal<T>(T want, T got, string what)
    {
        if (!EqualityComparer<T>.Default.Equals(want, got))
        {
            throw new Failure(what + ": want " + want + ", got " + got);
        }
    }

    /// <summary>Fails unless <paramref name="ok"/>.</summary>
    public static void True(bool ok, string what)
    {
        if (!ok)
        {
            throw new Failure(what);
        }
    }

    /// <summary>
    /// Runs <paramref name="tests"/> in order, each a method that throws on failure: prints
    /// <c>ok   NAME</c> or <c>FAIL NAME: message</c> for each, then <c>N passed, M failed</c>;
    /// returns the exit code, 1 when any failed.
    /// </summary>
    public static int Run(List<KeyValuePair<string, Action>> tests)
    {
        int failed = 0;
        foreach (KeyValuePair<string, Action> t in tests)
        {
            try
            {
                t.Value();
                Console.WriteLine("ok   " + t.Key);
            }
            catch (Exception e)
            {
                failed++;
                Console.WriteLine("FAIL " + t.Key + ": " + e.Message);
            }
        }
        Console.WriteLine((tests.Count - failed) + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
