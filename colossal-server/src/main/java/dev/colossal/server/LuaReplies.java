package dev.colossal.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * The two conversions between Lua values and RESP2 replies that Redis scripting defines: a
 * command's reply becomes a Lua value for the script ({@link #toLua}), and the script's result
 * becomes the client's reply ({@link #toReply}).
 */
final class LuaReplies {

    static final LuaString OK = LuaValue.valueOf("ok");
    static final LuaString ERR = LuaValue.valueOf("err");

    private LuaReplies() {
    }

    /** A table {@code {err=text}}, the form of an error reply inside scripts. */
    static LuaTable errorTable(String text) {
        LuaTable t = new LuaTable();
        t.rawset(ERR, LuaValue.valueOf(text));
        return t;
    }

    /**
     * Reads the one RESP2 reply in {@code buf[0, len)}: status {@code {ok=s}}, error {@code {err=s}},
     * integer a number, bulk a string, null bulk and null array false, array a table.
     */
    static LuaValue toLua(MemorySegment buf, int len) {
        int[] at = {0};
        return read(buf, at);
    }

    private static LuaValue read(MemorySegment buf, int[] at) {
        byte type = buf.get(JAVA_BYTE, at[0]++);
        switch (type) {
            case '+', '-' -> {
                LuaTable t = new LuaTable();
                t.rawset(type == '+' ? OK : ERR, LuaValue.valueOf(line(buf, at)));
                return t;
            }
            case ':' -> {
                return LuaValue.valueOf((double) Long.parseLong(new String(line(buf, at), StandardCharsets.US_ASCII)));
            }
            case '$' -> {
                int n = Integer.parseInt(new String(line(buf, at), StandardCharsets.US_ASCII));
                if (n < 0) {
                    return LuaValue.FALSE;
                }
                byte[] b = buf.asSlice(at[0], n).toArray(JAVA_BYTE);
                at[0] += n + 2;
                return LuaValue.valueOf(b);
            }
            case '*' -> {
                int n = Integer.parseInt(new String(line(buf, at), StandardCharsets.US_ASCII));
                if (n < 0) {
                    return LuaValue.FALSE;
                }
                LuaTable t = new LuaTable(n, 0);
                for (int i = 1; i <= n; i++) {
                    t.rawset(i, read(buf, at));
                }
                return t;
            }
            default -> throw new IllegalStateException("not a RESP2 reply type=" + (char) type + " at=" + (at[0] - 1));
        }
    }

    /** The bytes up to the next CRLF, which is consumed. */
    private static byte[] line(MemorySegment buf, int[] at) {
        int start = at[0];
        int end = start;
        while (buf.get(JAVA_BYTE, end) != '\r') {
            end++;
        }
        at[0] = end + 2;
        return buf.asSlice(start, end - start).toArray(JAVA_BYTE);
    }

    /**
     * Writes a script's result as Redis does: a number as an integer (truncated), a string as a
     * bulk string, true as 1, false and nil as a null, a table with {@code err} as an error and one
     * with {@code ok} as a status, any other table as an array of its elements up to the first nil.
     */
    static void toReply(LuaValue v, Reply r) {
        if (!nestedAtMost(v, MAX_NESTING)) {
            // Checked before the first byte is written: a reply cannot be taken back half written.
            r.error("ERR reached lua stack limit");
            return;
        }
        write(v, r);
    }

    /** Tables in tables this deep at most are answered; Lua 5.1's C stack would have stopped Redis first. */
    static final int MAX_NESTING = 1000;

    /** @return whether {@code v}'s arrays nest {@code left} deep at most (a table that holds itself does not) */
    private static boolean nestedAtMost(LuaValue v, int left) {
        if (!(v instanceof LuaTable t) || t.rawget(ERR).isstring() || t.rawget(OK).isstring()) {
            return true;
        }
        if (left == 0) {
            return false;
        }
        for (int i = 1; !t.rawget(i).isnil(); i++) {
            if (!nestedAtMost(t.rawget(i), left - 1)) {
                return false;
            }
        }
        return true;
    }

    private static void write(LuaValue v, Reply r) {
        switch (v.type()) {
            case LuaValue.TNUMBER -> r.integer(truncate(v.todouble()));
            case LuaValue.TSTRING -> {
                LuaString s = v.checkstring();
                r.bulk(s.m_bytes, s.m_offset, s.m_length);
            }
            case LuaValue.TBOOLEAN -> {
                if (v.toboolean()) {
                    r.integer(1);
                } else {
                    r.nullBulk();
                }
            }
            case LuaValue.TTABLE -> table((LuaTable) v, r);
            default -> r.nullBulk();
        }
    }

    private static void table(LuaTable t, Reply r) {
        LuaValue err = t.rawget(ERR);
        if (err.isstring()) {
            r.error(err.tojstring());
            return;
        }
        LuaValue ok = t.rawget(OK);
        if (ok.isstring()) {
            r.simple(ok.tojstring());
            return;
        }
        int n = 0;
        while (!t.rawget(n + 1).isnil()) {
            n++;
        }
        r.array(n);
        for (int i = 1; i <= n; i++) {
            write(t.rawget(i), r);
        }
    }

    /**
     * A Lua number as Redis's C cast makes it an integer: toward zero, and on x86 the lowest long
     * for what no long holds (NaN, infinities, 1e20).
     */
    static long truncate(double d) {
        return d >= -0x1p63 && d < 0x1p63 ? (long) d : Long.MIN_VALUE;
    }
}
