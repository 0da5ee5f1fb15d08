package dev.colossal.server;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code cmsgpack} table Redis gives scripts (lua-cmsgpack 0.4.0): {@code pack(...)} encodes
 * each argument and concatenates them; {@code unpack(s)} decodes every value in {@code s};
 * {@code unpack_one(s [, offset])} and {@code unpack_limit(s, n [, offset])} decode one or
 * {@code n} and return first the offset to go on from (-1 at the end). Its choices, as
 * redis-server 7.0 makes them:
 *
 * <ul>
 *   <li>A number equal to its 64-bit integer cast is an integer in the smallest encoding; any
 *       other a float 32 when that loses nothing, else a float 64.</li>
 *   <li>A table whose keys are exactly 1..n (n = its count, so no holes) is an array, any other
 *       table a map, in table order (which LuaJ's is not Lua's); past 16 levels a table is nil,
 *       as are functions and userdata.</li>
 *   <li>Strings use the str formats (fixstr, str8 from 32 bytes, str16, str32); decoding takes no
 *       bin or ext types ("Bad data format in input."), and uint 64 reads as signed.</li>
 * </ul>
 */
final class LuaMsgPack {

    private static final int MAX_NESTING = 16;
    /**
     * Lua 5.1's bound on a C function's stack slots (LUAI_MAXCSTACK): the library checks for room
     * before each value it pushes, so pack takes at most 4,000 arguments (it asks for as many slots
     * again) and unpack returns at most 7,999 values.
     */
    private static final int STACK_SLOTS = 8000;
    private static final String MISSING = "Missing bytes in input.";
    private static final String BAD_FORMAT = "Bad data format in input.";

    private LuaMsgPack() {
    }

    /** @param where gives Lua's {@code user_script:N: } prefix for errors */
    static LuaTable table(IntFunction<String> where) {
        LuaTable t = new LuaTable();
        LuaArgs packArgs = new LuaArgs(where, "pack");
        t.rawset("pack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                if (a.narg() == 0) {
                    throw packArgs.argError(0, "MessagePack pack needs input.");
                }
                if (a.narg() * 2 > STACK_SLOTS) {
                    throw packArgs.argError(0, "Too many arguments for MessagePack pack.");
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                for (int i = 1; i <= a.narg(); i++) {
                    encode(a.arg(i), out, 0);
                }
                return LuaValue.valueOf(out.toByteArray());
            }
        });
        LuaArgs unpackArgs = new LuaArgs(where, "unpack");
        t.rawset("unpack", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return unpack(unpackArgs, unpackArgs.string(a, 1), 0, 0, a.narg());
            }
        });
        LuaArgs oneArgs = new LuaArgs(where, "unpack_one");
        t.rawset("unpack_one", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                long offset = oneArgs.optInteger(a, 2, 0);
                return unpack(oneArgs, oneArgs.string(a, 1), 1, offset, 1);
            }
        });
        LuaArgs limitArgs = new LuaArgs(where, "unpack_limit");
        t.rawset("unpack_limit", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                long limit = limitArgs.integer(a, 2);
                long offset = limitArgs.optInteger(a, 3, 0);
                return unpack(limitArgs, limitArgs.string(a, 1), limit, offset, 1);
            }
        });
        t.rawset("_NAME", "cmsgpack");
        t.rawset("_VERSION", "lua-cmsgpack 0.4.0");
        t.rawset("_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo");
        t.rawset("_DESCRIPTION", "MessagePack C implementation for Lua");
        return t;
    }

    private static void encode(LuaValue v, ByteArrayOutputStream out, int level) {
        switch (v.type()) {
            case LuaValue.TSTRING -> {
                LuaString s = (LuaString) v;
                int n = s.m_length;
                if (n < 32) {
                    out.write(0xa0 | n);
                } else if (n <= 0xff) {
                    header(out, 0xd9, n, 1);
                } else if (n <= 0xffff) {
                    header(out, 0xda, n, 2);
                } else {
                    header(out, 0xdb, n, 4);
                }
                out.write(s.m_bytes, s.m_offset, n);
            }
            case LuaValue.TBOOLEAN -> out.write(v.toboolean() ? 0xc3 : 0xc2);
            case LuaValue.TNUMBER -> number(v.todouble(), out);
            case LuaValue.TTABLE -> {
                if (level == MAX_NESTING) {
                    out.write(0xc0);
                } else {
                    table((LuaTable) v, out, level);
                }
            }
            default -> out.write(0xc0); // nil, and what msgpack has no type for
        }
    }

    private static void number(double d, ByteArrayOutputStream out) {
        long n = LuaArgs.toLong(d);
        if (!Double.isInfinite(d) && n == d) {
            integer(n, out);
        } else if ((float) d == d) {
            header(out, 0xca, Float.floatToRawIntBits((float) d), 4);
        } else {
            header(out, 0xcb, LuaArgs.bits(d), 8);
        }
    }

    private static void integer(long n, ByteArrayOutputStream out) {
        if (n >= 0) {
            if (n <= 127) {
                out.write((int) n);
            } else if (n <= 0xff) {
                header(out, 0xcc, n, 1);
            } else if (n <= 0xffff) {
                header(out, 0xcd, n, 2);
            } else if (n <= 0xffffffffL) {
                header(out, 0xce, n, 4);
            } else {
                header(out, 0xcf, n, 8);
            }
        } else if (n >= -32) {
            out.write((int) n & 0xff);
        } else if (n >= Byte.MIN_VALUE) {
            header(out, 0xd0, n, 1);
        } else if (n >= Short.MIN_VALUE) {
            header(out, 0xd1, n, 2);
        } else if (n >= Integer.MIN_VALUE) {
            header(out, 0xd2, n, 4);
        } else {
            header(out, 0xd3, n, 8);
        }
    }

    /** Writes {@code type}, then the low {@code bytes} bytes of {@code v}, most significant first. */
    private static void header(ByteArrayOutputStream out, int type, long v, int bytes) {
        out.write(type);
        for (int i = bytes - 1; i >= 0; i--) {
            out.write((int) (v >>> (8 * i)) & 0xff);
        }
    }

    private static void table(LuaTable t, ByteArrayOutputStream out, int level) {
        int count = 0;
        double max = 0;
        boolean array = true;
        for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
            count++;
            if (array) {
                double d = k.type() == LuaValue.TNUMBER ? k.todouble() : 0;
                // C's (int) cast of the key must give the key back
                array = d > 0 && d <= Integer.MAX_VALUE && d == Math.floor(d);
                max = Math.max(max, d);
            }
        }
        if (array && max == count) {
            if (count < 16) {
                out.write(0x90 | count);
            } else if (count <= 0xffff) {
                header(out, 0xdc, count, 2);
            } else {
                header(out, 0xdd, count, 4);
            }
            for (int i = 1; i <= count; i++) {
                encode(t.rawget(i), out, level + 1);
            }
            return;
        }
        if (count < 16) {
            out.write(0x80 | count);
        } else if (count <= 0xffff) {
            header(out, 0xde, count, 2);
        } else {
            header(out, 0xdf, count, 4);
        }
        for (Varargs kv = t.next(LuaValue.NIL); !kv.arg1().isnil(); kv = t.next(kv.arg1())) {
            encode(kv.arg1(), out, level + 1);
            encode(kv.arg(2), out, level + 1);
        }
    }

    /**
     * Decodes from {@code offset} up to {@code limit} values (all of them when both are 0, and
     * then without the offset first).
     *
     * @param slots the stack slots the arguments left take (see {@link #STACK_SLOTS})
     */
    private static Varargs unpack(LuaArgs args, byte[] s, long limit, long offset, int slots) {
        if (offset < 0 || limit < 0) { // Redis's message gives the input's length as the limit
            throw args.error("Invalid request to unpack with offset of " + (int) offset + " and limit of "
                    + s.length + ".");
        }
        if (offset > s.length) {
            throw args.error("Start offset " + (int) offset + " greater than input length " + s.length + ".");
        }
        boolean all = limit == 0 && offset == 0;
        Decoder d = new Decoder(args, s, (int) offset);
        List<LuaValue> out = new ArrayList<>();
        if (!all) {
            out.add(LuaValue.NIL);
        }
        for (long n = 0; d.at < s.length && (all || n < limit); n++) {
            out.add(d.value(slots + (int) n));
        }
        if (!all) {
            if (slots + out.size() > STACK_SLOTS) { // the values, and now the offset
                throw args.error("stack overflow (in function mp_unpack_full)");
            }
            out.set(0, LuaValue.valueOf(d.at == s.length ? -1 : d.at));
        }
        return LuaValue.varargsOf(out.toArray(LuaValue[]::new));
    }

    /** Reads msgpack values from a string, as Lua values. */
    private static final class Decoder {
        private final LuaArgs args;
        private final byte[] s;
        int at;

        Decoder(LuaArgs args, byte[] s, int at) {
            this.args = args;
            this.s = s;
            this.at = at;
        }

        /** @return the {@code n}-byte big-endian number next, its bytes read */
        private long bits(int n) {
            if (s.length - at < n) {
                throw args.error(MISSING);
            }
            long v = 0;
            for (int i = 0; i < n; i++) {
                v = v << 8 | (s[at++] & 0xff);
            }
            return v;
        }

        /** @param used the stack slots taken when Lua's library would push this value */
        LuaValue value(int used) {
            if (used + 1 > STACK_SLOTS) {
                throw args.error("stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)");
            }
            int type = (int) bits(1);
            if (type <= 0x7f) {
                return LuaValue.valueOf(type);
            } else if (type >= 0xe0) {
                return LuaValue.valueOf(type - 0x100);
            } else if (type >= 0xa0 && type <= 0xbf) {
                return string(type & 0x1f);
            } else if (type >= 0x90 && type <= 0x9f) {
                return array(type & 0x0f, used);
            } else if (type >= 0x80 && type <= 0x8f) {
                return map(type & 0x0f, used);
            }
            return switch (type) {
                case 0xc0 -> LuaValue.NIL;
                case 0xc2 -> LuaValue.FALSE;
                case 0xc3 -> LuaValue.TRUE;
                case 0xca -> LuaValue.valueOf(Float.intBitsToFloat((int) bits(4)));
                case 0xcb -> LuaValue.valueOf(Double.longBitsToDouble(bits(8)));
                case 0xcc -> LuaValue.valueOf((double) bits(1));
                case 0xcd -> LuaValue.valueOf((double) bits(2));
                case 0xce -> LuaValue.valueOf((double) bits(4));
                case 0xcf, 0xd3 -> LuaValue.valueOf((double) bits(8)); // uint 64 read as signed, as Redis's does
                case 0xd0 -> LuaValue.valueOf((byte) bits(1));
                case 0xd1 -> LuaValue.valueOf((short) bits(2));
                case 0xd2 -> LuaValue.valueOf((int) bits(4));
                case 0xd9 -> string(bits(1));
                case 0xda -> string(bits(2));
                case 0xdb -> string(bits(4));
                case 0xdc -> array(bits(2), used);
                case 0xdd -> array(bits(4), used);
                case 0xde -> map(bits(2), used);
                case 0xdf -> map(bits(4), used);
                default -> throw args.error(BAD_FORMAT);
            };
        }

        private LuaValue string(long n) {
            if (s.length - at < n) {
                throw args.error(MISSING);
            }
            LuaValue v = LuaValue.valueOf(java.util.Arrays.copyOfRange(s, at, at + (int) n));
            at += (int) n;
            return v;
        }

        /** Each element is decoded above the table and its index. */
        private LuaValue array(long n, int used) {
            LuaTable t = new LuaTable();
            for (long i = 1; i <= n; i++) {
                t.rawset((int) i, value(used + 2));
            }
            return t;
        }

        /** Each key is decoded above the table, each value above the table and its key. */
        private LuaValue map(long n, int used) {
            LuaTable t = new LuaTable();
            for (long i = 0; i < n; i++) {
                LuaValue k = value(used + 1);
                LuaValue v = value(used + 2);
                if (k.isnil()) {
                    throw new LuaError(LuaValue.valueOf("table index is nil")); // Lua's own error, without a position
                }
                if (k.type() == LuaValue.TNUMBER && Double.isNaN(k.todouble())) {
                    throw new LuaError(LuaValue.valueOf("table index is NaN"));
                }
                t.rawset(k, v);
            }
            return t;
        }
    }
}
