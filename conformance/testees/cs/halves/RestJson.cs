// What the datagram, baseline and delta adapters share: reading the protocol's JSON objects
// strictly (a missing or mistyped member is an error naming it, never a default), and the report
// of a frame a half refused, as conformance/src/sessions/ reports it for the Rust halves (the
// runner compares reports: conformance/PROTOCOL.md, "Reports").

using System;
using System.Collections.Generic;
using Ackwire.Runtime;
using Ackwire.Runtime.Sessions;

/// <summary>JSON reading and refusal reports for the adapters of halves/.</summary>
static class RestJson
{
    /// <summary>Member <paramref name="key"/> of object <paramref name="o"/>, or null when absent.</summary>
    public static JsonValue Get(JsonValue o, string key)
    {
        return o != null && o.Kind == JsonKind.Object ? o.Get(key) : null;
    }

    /// <summary>Member <paramref name="key"/>, which must be there.</summary>
    public static JsonValue Field(JsonValue o, string key)
    {
        JsonValue v = Get(o, key);
        if (v == null)
        {
            throw new ArgumentException("missing `" + key + "`");
        }
        return v;
    }

    /// <summary>Member <paramref name="key"/> as an unsigned integer at most <paramref name="max"/>.</summary>
    public static ulong Uint(JsonValue o, string key, ulong max)
    {
        ulong? n = Sessions.AsU64(Field(o, key));
        if (n == null || n.Value > max)
        {
            throw new ArgumentException("`" + key + "` must be an unsigned integer at most " + max);
        }
        return n.Value;
    }

    /// <summary>Member <paramref name="key"/> as a number.</summary>
    public static double Number(JsonValue o, string key)
    {
        double? d = Sessions.AsF64(Field(o, key));
        if (d == null)
        {
            throw new ArgumentException("`" + key + "` must be a number");
        }
        return d.Value;
    }

    /// <summary>A world op: an object with exactly one member, its name and body.</summary>
    public static KeyValuePair<string, JsonValue> Op(JsonValue v)
    {
        if (v == null || v.Kind != JsonKind.Object || v.Members.Count != 1)
        {
            throw new ArgumentException("a world op is an object with one member");
        }
        return v.Members[0];
    }

    /// <summary>Bytes from a hex string.</summary>
    public static byte[] Hex(JsonValue v)
    {
        byte[] b = v != null && v.Kind == JsonKind.String ? Json.FromHex(v.Text) : null;
        if (b == null)
        {
            throw new ArgumentException("component bytes must be a hex string");
        }
        return b;
    }

    /// <summary>
    /// Runs <paramref name="deliver"/>, which writes a frame's report; a frame that did not decode
    /// is reported as <c>{"error": kind}</c>, one the half does not take as
    /// <c>{"ignored": frame}</c>. Any other refusal propagates (a bad_request).
    /// </summary>
    public static void Report(JsonWriter j, string frame, Action<JsonWriter> deliver)
    {
        JsonWriter inner = new JsonWriter();
        try
        {
            deliver(inner);
        }
        catch (SessionError e)
        {
            j.BeginObject();
            if (e.Kind == SessionError.Decode)
            {
                DecodeError d = e.InnerException as DecodeError;
                j.Name("error");
                j.String(d != null ? Errors.KindName(d.Kind) : e.Message);
            }
            else if (e.Kind == SessionError.UnexpectedFrame)
            {
                j.Name("ignored");
                j.String(frame);
            }
            else
            {
                throw;
            }
            j.EndObject();
            return;
        }
        j.Raw(inner.ToString());
    }
}
