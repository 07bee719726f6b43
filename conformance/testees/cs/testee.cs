// The C# testee: conformance/PROTOCOL.md over standard input and output, answering with the
// codec generated from the reference protocol (gen/Protocol.cs, written by build.sh).
//
// Its frames are served by the testee `ackwire gen --lang cs --testee` writes for any spec
// (gen/Testee.cs over gen/Runtime/Testee.cs: `hello`, `decode`, `encode` through the frames'
// JSON form, `bye`, and the codec held to its own promises on every request); what is the
// reference protocol's own, the session halves registered in Sessions.cs, is given to it here.

using System.Collections.Generic;
using Ackwire.Protocol;
using Ackwire.Runtime;

/// <summary>The halves of Sessions.cs, as the generated testee takes them.</summary>
sealed class ReferenceSessions : ITesteeSessions
{
    /// <inheritdoc/>
    public IEnumerable<string> Names { get { return Sessions.Halves.Names; } }

    /// <inheritdoc/>
    public void Answer(string op, JsonValue request, JsonWriter j)
    {
        Sessions.Answer(op, request, j);
    }
}

static class Program
{
    static int Main()
    {
        return ProtocolTestee.Serve(new ReferenceSessions());
    }
}
