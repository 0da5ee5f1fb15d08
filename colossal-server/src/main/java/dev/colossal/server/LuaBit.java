package dev.colossal.server;

import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.VarArgFunction;

/**
 * The {@code bit} table Redis gives scripts (LuaBitOp): operations on 32-bit signed integers.
 * An argument is first brought to 32 bits as LuaBitOp does: rounded to an integer, then taken
 * modulo 2^32 (so {@code bit.tobit(2^32 + 5)} is 5).
 */
final class LuaBit {

    private LuaBit() {
    }

    /** The operations, by name: each folds its arguments from the first. */
    private enum Op {
        TOBIT, BNOT, BAND, BOR, BXOR, LSHIFT, RSHIFT, ARSHIFT, ROL, ROR
    }

    static LuaTable table() {
        LuaTable t = new LuaTable();
        for (Op op : Op.values()) {
            t.rawset(op.name().toLowerCase(java.util.Locale.ROOT), new VarArgFunction() {
                @Override
                public Varargs invoke(Varargs a) {
                    return LuaValue.valueOf(apply(op, a));
                }
            });
        }
        t.rawset("tohex", new VarArgFunction() {
            @Override
            public Varargs invoke(Varargs a) {
                int v = tobit(a.checkdouble(1));
                int n = a.isnoneornil(2) ? 8 : tobit(a.checkdouble(2));
                boolean upper = n < 0;
                n = Math.min(Math.abs(n), 8);
                String hex = String.format(upper ? "%08X" : "%08x", v);
                return LuaValue.valueOf(hex.substring(8 - n));
            }
        });
        return t;
    }

    private static int apply(Op op, Varargs a) {
        int x = tobit(a.checkdouble(1));
        return switch (op) {
            case TOBIT -> x;
            case BNOT -> ~x;
            case BAND, BOR, BXOR -> {
                for (int i = 2; i <= a.narg(); i++) {
                    int y = tobit(a.checkdouble(i));
                    x = op == Op.BAND ? x & y : op == Op.BOR ? x | y : x ^ y;
                }
                yield x;
            }
            case LSHIFT -> x << tobit(a.checkdouble(2));
            case RSHIFT -> x >>> tobit(a.checkdouble(2));
            case ARSHIFT -> x >> tobit(a.checkdouble(2));
            case ROL -> Integer.rotateLeft(x, tobit(a.checkdouble(2)));
            case ROR -> Integer.rotateRight(x, tobit(a.checkdouble(2)));
        };
    }

    /** LuaBitOp's normalisation: round half to even, then the low 32 bits. */
    static int tobit(double d) {
        return (int) (long) Math.rint(d);
    }
}
