//
// The testee of the codec in Protocol.cs: conformance/PROTOCOL.md over standard input and output,
// one JSON request a line in and one reply a line out, so that `ackwire conform` checks this codec
// through the same door as every other implementation. The replies are the runtime's
// (Runtime/Testee.cs); this file names the frames. Main.cs serves it with no session half; a
// testee that has halves passes them to ProtocolTestee.Serve.

using System;
using System.IO;
using System.Text;
using Ackwire.Runtime;

namespace Ackwire.Protocol
{
    /// <summary>The frames of Protocol.cs by name, as the runtime's testee takes them.</summary>
    public sealed class ProtocolFrames : ITesteeFrames
    {
        /// <inheritdoc/>
        public string[] Names { get { return Frames.Names; } }

        /// <inheritdoc/>
        public object Decode(string name, byte[] bytes) { return Frames.Decode(name, bytes); }

        /// <inheritdoc/>
        public byte[] Encode(string name, object value) { return Frames.Encode(name, value); }

        /// <inheritdoc/>
        public int EncodedLen(string name, object value) { return Frames.EncodedLen(name, value); }

        /// <inheritdoc/>
        public void ToJson(string name, object value, JsonWriter j) { Frames.ToJson(name, value, j); }

        /// <inheritdoc/>
        public object FromJson(string name, JsonValue json) { return Frames.FromJson(name, json); }
    }

    /// <summary>The testee of Protocol.cs on standard input and output.</summary>
    public static class ProtocolTestee
    {
        /// <summary>Serves the testee protocol until the input ends, or <c>bye</c>, with <paramref name="sessions"/> (or none, when null) beside the frames; the exit code.</summary>
        public static int Serve(ITesteeSessions sessions)
        {
            TextReader input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
            TextWriter output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
            return new Testee("ackwire-cs", new ProtocolFrames(), sessions).Serve(input, output);
        }
    }
}
