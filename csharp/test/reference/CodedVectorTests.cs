// The generated AckedCoded (kind 13) held to vectors/frames/acked_coded.json (under
// $ACKWIRE_VECTORS_DIR): every case's bytes decode, against the basis it carries (its base's and
// older snapshot's records; none when absent), to its value, and the value encodes against the
// same basis to those bytes; every refused case fails with its error's kind, offset and path,
// as the Rust codec's.

using System;
using System.Collections.Generic;
using System.IO;
using Ackwire.Protocol;
using Ackwire.Runtime;
using static Harness;

static class CodedVectorTests
{
    /// <summary>The records a case's <c>basis</c> holds, by id.</summary>
    sealed class CaseBasis : ICodedBasis<EntityState>
    {
        readonly Dictionary<int, EntityState> bases = new Dictionary<int, EntityState>();
        readonly Dictionary<int, EntityState> olders = new Dictionary<int, EntityState>();

        public CaseBasis(JsonValue basis)
        {
            if (basis == null)
            {
                return;
            }
            Fill(bases, basis.Get("base"));
            Fill(olders, basis.Get("older"));
        }

        static void Fill(Dictionary<int, EntityState> into, JsonValue list)
        {
            if (list == null)
            {
                return;
            }
            foreach (JsonValue e in list.Items)
            {
                into.Add(int.Parse(e.Get("eid").Text), EntityState.FromJson(e.Get("state")));
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

    static string Text(AckedCoded f)
    {
        JsonWriter j = new JsonWriter();
        f.ToJson(j);
        return j.ToString();
    }

    public static void EveryCaseDecodesAndEncodes()
    {
        string dir = Environment.GetEnvironmentVariable("ACKWIRE_VECTORS_DIR");
        True(!string.IsNullOrEmpty(dir), "ACKWIRE_VECTORS_DIR names the repository's vectors/ (test.sh sets it)");
        JsonValue doc = JsonValue.Parse(File.ReadAllText(Path.Combine(dir, Path.Combine("frames", "acked_coded.json"))));
        int values = 0;
        int errors = 0;
        foreach (JsonValue c in doc.Get("cases").Items)
        {
            string name = c.Get("name").Text;
            byte[] bytes = Json.FromHex(c.Get("hex").Text);
            CaseBasis basis = new CaseBasis(c.Get("basis"));
            JsonValue value = c.Get("value");
            if (value != null)
            {
                AckedCoded want = AckedCoded.FromJson(value);
                AckedCoded got = AckedCoded.Decode(bytes, basis);
                Equal(Text(want), Text(got), name + ": decoded");
                Equal(Json.ToHex(bytes), Json.ToHex(want.Encode(basis)), name + ": encoded");
                values++;
                continue;
            }
            JsonValue error = c.Get("error");
            try
            {
                AckedCoded.Decode(bytes, basis);
                True(false, name + ": decoded, but the case is refused");
            }
            catch (DecodeError e)
            {
                Equal(error.Get("kind").Text, Errors.KindName(e.Kind), name + ": the kind");
                Equal(error.Get("offset").Text, e.Offset.ToString(), name + ": the offset");
                Equal(error.Get("path").Text, e.Path, name + ": the path");
            }
            errors++;
        }
        True(values >= 10 && errors >= 10, values + " decoded cases, " + errors + " refused");
    }
}
