// The tests' harness, shared by both programs test.sh builds (the runtime's tests, test/*.cs,
// and the reference schemas' tests, test/reference/*.cs, which test.sh compiles with this file):
// the failure a check throws, the checks, and the runner each Main hands its tests to. Each test
// file takes them with `using static Harness;`.

using System;
using System.Collections.Generic;

static class Harness
{
    /// <summary>A check that failed, with what was checked and what was found.</summary>
    public sealed class Failure : Exception
    {
        public Failure(string message) : base(message) { }
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
