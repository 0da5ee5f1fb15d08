package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * A script's result as the client's reply, by Redis 7.0's rules: a number is an integer
 * (truncated), a string a bulk string, nil a null; a table is, by the first of its fields that
 * holds the right type, an error ({@code err}), a status ({@code ok}), a double ({@code double}), a
 * big number ({@code big_number}), verbatim text ({@code verbatim_string={format=, string=}}), a map
 * ({@code map}), a set ({@code set}, its keys), and else an array of its elements up to the first
 * nil. The RESP3 forms reach a RESP2 client as Redis writes them there: a double or a big number as
 * a bulk string, a map as a flat array. A boolean follows the script's protocol ({@code
 * redis.setresp}): under RESP2 true is 1 and false a null, under RESP3 a boolean, which a RESP2
 * client reads as 1 or 0.
 */
final class LuaResult {

    private static final LuaString DOUBLE = LuaReplies.DOUBLE;
    private static final LuaString BIG_NUMBER = LuaReplies.BIG_NUMBER;
    private static final LuaString VERBATIM = LuaReplies.VERBATIM;
    private static final LuaString FORMAT = LuaReplies.FORMAT;
    private static final LuaString STRING = LuaReplies.STRING;
    private static final LuaString MAP = LuaReplies.MAP;
    private static final LuaString SET = LuaReplies.SET;

    /** Tables in tables this deep at most are answered; Lua 5.1's C stack would have stopped Redis first. */
    static final int MAX_NESTING = 1000;

    private final Reply r;
    private final boolean resp3Script;

    private LuaResult(Reply r, boolean resp3Script) {
        this.r = r;
        this.resp3Script = resp3Script;
    }

    /**
     * @param scriptProtocol the protocol the script chose last with {@code redis.setresp} (2 if none)
     */
    static void write(LuaValue v, Reply r, int scriptProtocol) {
        if (!nestedAtMost(v, MAX_NESTING)) {
            // Checked before the first byte is written: a reply cannot be taken back half written.
            r.error("ERR reached lua stack limit");
            return;
        }
        new LuaResult(r, scriptProtocol >= 3).value(v);
    }

    /** @return whether {@code v}'s tables nest {@code left} deep at most (a table that holds itself does not) */
    private static boolean nestedAtMost(LuaValue v, int left) {
        if (!(v instanceof LuaTable t) || t.rawget(LuaReplies.ERR).isstring() || t.rawget(LuaReplies.OK).isstring()
                || t.rawget(DOUBLE).type() == LuaValue.TNUMBER || t.rawget(BIG_NUMBER).type() == LuaValue.TSTRING) {
            return true;
        }
        if (left == 0) {
            return false;
        }
        LuaValue inner = t.rawget(MAP);
        boolean map = inner.istable();
        if (!map && t.rawget(VERBATIM).istable() && verbatimParts(t.rawget(VERBATIM).checktable()) != null) {
            return true;
        }
        if (map || t.rawget(SET).istable()) {
            LuaTable m = map ? inner.checktable() : t.rawget(SET).checktable();
            for (Varargs e = m.next(LuaValue.NIL); !e.arg1().isnil(); e = m.next(e.arg1())) {
                if (!nestedAtMost(e.arg1(), left - 1) || map && !nestedAtMost(e.arg(2), left - 1)) {
                    return false;
                }
            }
            return true;
        }
        for (int i = 1; !t.rawget(i).isnil(); i++) {
            if (!nestedAtMost(t.rawget(i), left - 1)) {
                return false;
            }
        }
        return true;
    }

    private void value(LuaValue v) {
        switch (v.type()) {
            case LuaValue.TNUMBER -> r.integer(truncate(v.todouble()));
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                r.bulk(s.m_bytes, s.m_offset, s.m_length);
            }
            case LuaValue.TBOOLEAN -> bool(v.toboolean());
            case LuaValue.TTABLE -> table((LuaTable) v);
            default -> r.nullBulk();
        }
    }

    private void bool(boolean b) {
        if (!resp3Script) {
            if (b) {
                r.integer(1);
            } else {
                r.nullBulk();
            }
        } else if (r.protocol >= 3) {
            r.append(b ? TRUE3 : FALSE3);
        } else {
            r.integer(b ? 1 : 0);
        }
    }

    private static final byte[] TRUE3 = "#t\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE3 = "#f\r\n".getBytes(StandardCharsets.US_ASCII);

    private void table(LuaTable t) {
        LuaValue err = t.rawget(LuaReplies.ERR);
        if (err.isstring()) {
            r.error(err.tojstring());
            return;
        }
        LuaValue ok = t.rawget(LuaReplies.OK);
        if (ok.isstring()) {
            r.simple(ok.tojstring());
            return;
        }
        // Lua's own type, not what it converts to: {double='1.5'} is an array, as in Redis
        LuaValue d = t.rawget(DOUBLE);
        if (d.type() == LuaValue.TNUMBER) {
            double x = d.todouble();
            if (Double.isNaN(x)) {
                // Redis prints x86's NaN, whose sign bit is set; Java does not keep NaN's sign
                r.append((r.protocol >= 3 ? ",-nan\r\n" : "$4\r\n-nan\r\n").getBytes(StandardCharsets.US_ASCII));
            } else {
                ZScore.reply(r, x);
            }
            return;
        }
        LuaValue big = t.rawget(BIG_NUMBER);
        if (big.type() == LuaValue.TSTRING) {
            bigNumber(noLineBreaks(RedisLib.bytes(big.strvalue())));
            return;
        }
        LuaValue verbatim = t.rawget(VERBATIM);
        if (verbatim.istable()) {
            byte[][] parts = verbatimParts(verbatim.checktable());
            if (parts != null) {
                verbatim(parts[0], parts[1]);
                return;
            }
        }
        // A map's keys and values, or a set's keys (their values are Lua's stand-in, true)
        boolean map = t.rawget(MAP).istable();
        if (map || t.rawget(SET).istable()) {
            LuaTable m = t.rawget(map ? MAP : SET).checktable();
            if (map) {
                r.map(count(m));
            } else {
                r.set(count(m));
            }
            for (Varargs e = m.next(LuaValue.NIL); !e.arg1().isnil(); e = m.next(e.arg1())) {
                value(e.arg1());
                if (map) {
                    value(e.arg(2));
                }
            }
            return;
        }
        int n = 0;
        while (!t.rawget(n + 1).isnil()) {
            n++;
        }
        r.array(n);
        for (int i = 1; i <= n; i++) {
            value(t.rawget(i));
        }
    }

    /** @return the entries {@code next} walks, which Redis counts as it writes them */
    private static int count(LuaTable t) {
        int n = 0;
        for (Varargs e = t.next(LuaValue.NIL); !e.arg1().isnil(); e = t.next(e.arg1())) {
            n++;
        }
        return n;
    }

    /**
     * @return {@code {format, string}} of a {@code verbatim_string} table whose both fields are
     *     strings (Lua's type: a number there is not one), else null and the table is no verbatim text
     */
    private static byte[][] verbatimParts(LuaTable v) {
        LuaValue format = v.rawget(FORMAT);
        LuaValue text = v.rawget(STRING);
        if (format.type() != LuaValue.TSTRING || text.type() != LuaValue.TSTRING) {
            return null;
        }
        return new byte[][] {RedisLib.bytes(format.strvalue()), RedisLib.bytes(text.strvalue())};
    }

    private void bigNumber(byte[] digits) {
        if (r.protocol < 3) {
            r.bulk(digits);
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(digits.length + 3);
        out.write('(');
        out.writeBytes(digits);
        out.write('\r');
        out.write('\n');
        r.append(out.toByteArray());
    }

    /**
     * RESP3 verbatim text: its format is three bytes, cut or padded with spaces as Redis writes
     * it (Redis stops at a NUL too, which Lua strings here seldom hold).
     */
    private void verbatim(byte[] format, byte[] text) {
        if (r.protocol < 3) {
            r.bulk(text);
            return;
        }
        byte[] body = new byte[text.length + 4];
        for (int i = 0; i < 3; i++) {
            body[i] = i < format.length && format[i] != 0 ? format[i] : (byte) ' ';
        }
        body[3] = ':';
        System.arraycopy(text, 0, body, 4, text.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 16);
        out.writeBytes(("=" + body.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(body);
        out.write('\r');
        out.write('\n');
        r.append(out.toByteArray());
    }

    /** A status or big number's CR and LF become spaces, as Redis keeps its one line whole. */
    private static byte[] noLineBreaks(byte[] b) {
        byte[] out = b.clone();
        for (int i = 0; i < out.length; i++) {
            if (out[i] == '\r' || out[i] == '\n') {
                out[i] = ' ';
            }
        }
        return out;
    }

    /**
     * A Lua number as Redis's C cast makes it an integer: toward zero, and on x86 the lowest long
     * for what no long holds (NaN, infinities, 1e20).
     */
    static long truncate(double d) {
        return d >= -0x1p63 && d < 0x1p63 ? (long) d : Long.MIN_VALUE;
    }
}
