// The C# testee: conformance/PROTOCOL.md over standard input and output, answering with the
// codec generated from the reference protocol (gen/Protocol.cs, written by build.sh).
//
// Its frames are served by the testee `ackwire gen --lang cs --testee` writes for any spec
// (gen/Testee.cs over gen/Runtime/Testee.cs: `hello`, `decode`, `encode` through the frames'
// JSON form, `bye`, and the codec held to its own promises on every request); what is the
// reference protocol's own, the session halves registered in Sessions.cs, is given to it here,
// and so is its coded frame `acked_coded` (kind 13), read and written against the `basis` its
// requests carry (PROTOCOL.md, "A coded frame's basis").

using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
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

/// <summary>The coded frame <c>acked_coded</c>, read and written against a request's basis.</summary>
sealed class CodedFrames : ITesteeBasisFrames
{
    const string Name = "acked_coded";

    /// <summary>The records a request's <c>basis</c> holds, by id (nothing when it is absent).</summary>
    sealed class Held : ICodedBasis<EntityState>
    {
        readonly Dictionary<int, EntityState> bases = new Dictionary<int, EntityState>();
        readonly Dictionary<int, EntityState> olders = new Dictionary<int, EntityState>();

        public Held(JsonValue basis)
        {
            if (basis == null || basis.Kind == JsonKind.Null)
            {
                return;
            }
            if (basis.Kind != JsonKind.Object)
            {
                throw new JsonError("a basis is an object of `base` and `older`");
            }
            Fill(bases, basis.Get("base"), "base");
            Fill(olders, basis.Get("older"), "older");
        }

        static void Fill(Dictionary<int, EntityState> into, JsonValue list, string name)
        {
            if (list == null)
            {
                return;
            }
            List<JsonValue> items = Json.Array(list);
            for (int i = 0; i < items.Count; i++)
            {
                try
                {
                    int eid = (int)Json.Uint(Json.Member(items[i], "eid"), 65535UL);
                    if (into.ContainsKey(eid))
                    {
                        throw new JsonError("entity " + eid + " twice");
                    }
                    into[eid] = EntityState.FromJson(Json.Member(items[i], "state"));
                }
                catch (JsonError e)
                {
                    throw e.Within(i).Within(name);
                }
            }
        }

        public EntityState Base(int eid)
        {
            EntityState r;
            return bases.TryGetValue(eid, out r) ? r : null;
        }

        public EntityState Older(int eid)
        {
            EntityState r;
            return olders.TryGetValue(eid, out r) ? r : null;
        }
    }

    /// <inheritdoc/>
    public string[] Names { get { return new[] { Name }; } }

    /// <inheritdoc/>
    public object Decode(string name, byte[] bytes, JsonValue basis)
    {
        return AckedCoded.Decode(bytes, new Held(basis));
    }

    /// <inheritdoc/>
    public byte[] Encode(string name, object value, JsonValue basis)
    {
        return ((AckedCoded)value).Encode(new Held(basis));
    }

    /// <inheritdoc/>
    public void ToJson(string name, object value, JsonWriter j)
    {
        ((AckedCoded)value).ToJson(j);
    }

    /// <inheritdoc/>
    public object FromJson(string name, JsonValue json)
    {
        return AckedCoded.FromJson(json);
    }
}

static class Program
{
    static int Main()
    {
        TextReader input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        TextWriter output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        return new Testee("ackwire-cs", new ProtocolFrames(), new ReferenceSessions(), new CodedFrames()).Serve(input, output);
    }
}
