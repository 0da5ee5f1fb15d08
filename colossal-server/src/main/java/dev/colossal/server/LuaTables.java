package dev.colossal.server;

import java.util.function.IntFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The table library as Redis's Lua 5.1 has it, where LuaJ's is 5.2's: no {@code table.pack} or
 * {@code table.unpack}; {@code foreach}, {@code foreachi}, {@code maxn} and {@code setn} (which
 * only says it is obsolete); a {@code concat} that writes numbers as 5.1 does; and a global {@code unpack} that refuses, as 5.1's C stack does, more
 * than {@value #MAX_C_STACK} values counting its own arguments. Scripts probe for these: Dramatiq's
 * broker finds its unpack size by doubling until {@code (table.unpack or unpack)} fails, and a
 * {@code table.unpack} that never fails made that probe fill the heap for as long as it ran.
 */
final class LuaTables {

    /** Lua 5.1's LUAI_MAXCSTACK: values a C function may have on its stack, its arguments included. */
    static final int MAX_C_STACK = 8000;

    private LuaTables() {}

    /** Turns {@code table} (LuaJ's) into 5.1's and returns 5.1's global {@code unpack}. */
    static LuaValue install(LuaTable table, IntFunction<String> where) {
        table.rawset("pack", LuaValue.NIL);
        table.rawset("unpack", LuaValue.NIL);
        LuaArgs maxnArgs = new LuaArgs(where, "maxn");
        table.rawset("maxn", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaTable t = checkTable(maxnArgs, a);
                double max = 0;
                for (LuaValue k = t.next(LuaValue.NIL).arg1(); !k.isnil(); k = t.next(k).arg1()) {
                    if (k.type() == LuaValue.TNUMBER && k.todouble() > max) {
                        max = k.todouble();
                    }
                }
                return LuaValue.valueOf(max);
            }
        });
        LuaArgs foreachArgs = new LuaArgs(where, "foreach");
        table.rawset("foreach", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue f) {
                LuaTable table = checkTable(foreachArgs, LuaValue.varargsOf(t, f));
                checkFunction(foreachArgs, f);
                for (Varargs kv = table.next(LuaValue.NIL); !kv.arg1().isnil(); kv = table.next(kv.arg1())) {
                    LuaValue r = f.call(kv.arg1(), kv.arg(2));
                    if (!r.isnil()) {
                        return r;
                    }
                }
                return LuaValue.NIL;
            }
        });
        LuaArgs foreachiArgs = new LuaArgs(where, "foreachi");
        table.rawset("foreachi", new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue f) {
                LuaTable table = checkTable(foreachiArgs, LuaValue.varargsOf(t, f));
                checkFunction(foreachiArgs, f);
                int n = table.rawlen();
                for (int i = 1; i <= n; i++) {
                    LuaValue r = f.call(LuaValue.valueOf(i), table.rawget(i));
                    if (!r.isnil()) {
                        return r;
                    }
                }
                return LuaValue.NIL;
            }
        });
        LuaArgs setnArgs = new LuaArgs(where, "setn");
        table.rawset("setn", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                checkTable(setnArgs, a);
                throw setnArgs.error("'setn' is obsolete");
            }
        });
        LuaArgs concatArgs = new LuaArgs(where, "concat");
        table.rawset("concat", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                return LuaTables.concat(concatArgs, a);
            }
        });
        LuaArgs unpackArgs = new LuaArgs(where, "unpack");
        return new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                LuaTable t = checkTable(unpackArgs, a);
                long i = unpackArgs.optInteger(a, 2, 1);
                long e = a.isnil(3) ? t.rawlen() : unpackArgs.integer(a, 3);
                if (i > e) {
                    return LuaValue.NONE;
                }
                long n = e - i + 1;
                if (n + a.narg() > MAX_C_STACK) {
                    throw unpackArgs.error("too many results to unpack");
                }
                LuaValue[] values = new LuaValue[(int) n];
                for (int k = 0; k < n; k++) {
                    values[k] = t.rawget(LuaValue.valueOf((double) (i + k)));
                }
                return LuaValue.varargsOf(values);
            }
        };
    }

    /**
     * {@code table.concat(t [, sep [, i [, j]]])}: LuaJ's writes a number as Java does (0.0003 as
     * 3.0E-4); Lua 5.1's as {@code tostring} does ({@code %.14g}).
     */
    private static LuaValue concat(LuaArgs args, Varargs a) {
        LuaTable t = checkTable(args, a);
        byte[] sep = a.isnoneornil(2) ? new byte[0] : RedisLib.bytes(a.checkstring(2));
        long i = args.optInteger(a, 3, 1);
        long j = a.isnoneornil(4) ? t.length() : args.integer(a, 4);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (long k = i; k <= j; k++) {
            LuaValue v = t.rawget(LuaValue.valueOf((double) k));
            if (v.type() == LuaValue.TNUMBER) {
                out.writeBytes(LuaFormat.number(v.todouble()).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            } else if (v.type() == LuaValue.TSTRING) {
                out.writeBytes(RedisLib.bytes(v.checkstring()));
            } else {
                throw args.error("invalid value (at index " + k + ") in table for 'concat'");
            }
            if (k < j) {
                out.writeBytes(sep);
            }
        }
        return LuaValue.valueOf(out.toByteArray());
    }

    private static LuaTable checkTable(LuaArgs args, Varargs a) {
        if (!a.arg1().istable()) {
            throw args.argError(1, "table expected, got " + (a.narg() == 0 ? "no value" : a.arg1().typename()));
        }
        return (LuaTable) a.arg1();
    }

    private static void checkFunction(LuaArgs args, LuaValue f) {
        if (!f.isfunction()) {
            throw args.argError(2, "function expected, got " + (f.isnil() ? "nil" : f.typename()));
        }
    }
}
