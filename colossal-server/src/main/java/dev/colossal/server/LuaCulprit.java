package dev.colossal.server;

import org.luaj.vm2.Lua;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Prototype;

/**
 * Names the value a failed instruction stumbled on as Lua 5.1's runtime errors do ({@code local 'x'},
 * {@code global 'f'}, {@code field 'a'}, {@code method 'm'}, {@code upvalue 'u'}), reading LuaJ's
 * bytecode back from the failed instruction to the one that set the register; LuaJ's own texts say
 * "?" or only the type. Asked only once a script has failed, never on the way of one that runs.
 */
final class LuaCulprit {

    private static final java.util.regex.Pattern ARITHMETIC =
            java.util.regex.Pattern.compile("attempt to perform arithmetic (__\\w+ )?on \\w+( and \\w+)?");

    private LuaCulprit() {
    }

    /**
     * @param text  a runtime error's text after its {@code user_script:N: } position, as LuaJ words it
     * @param p     the function that failed, null if not known
     * @param pc    the instruction that failed
     * @param stack its registers
     * @return the text as Lua 5.1 words it when it is one of LuaJ's texts for a value of the wrong
     *     type and {@code pc} is an instruction that gives it; else {@code text}
     */
    static String reword(String text, Prototype p, int pc, LuaValue[] stack) {
        if (p == null || pc < 0 || pc >= p.code.length || stack == null) {
            return text;
        }
        int i = p.code[pc];
        int op = Lua.GET_OPCODE(i);
        int a = Lua.GETARG_A(i);
        int b = Lua.GETARG_B(i);
        int c = Lua.GETARG_C(i);
        if (text.startsWith("attempt to index ? (a ") || text.startsWith("index expected, got ")) {
            if (op == Lua.OP_GETTABLE || op == Lua.OP_SELF) {
                return typeError(text, p, pc, stack, b, "index");
            }
            if (op == Lua.OP_GETTABUP || op == Lua.OP_SETTABUP) {
                // a table in an upvalue of the function (LuaJ's globals are _ENV's, which never fails)
                int up = op == Lua.OP_GETTABUP ? b : a;
                String type = text.startsWith("index expected, got ") ? text.substring("index expected, got ".length())
                        : text.substring("attempt to index ? (a ".length(), text.length() - " value)".length());
                return up < p.upvalues.length && p.upvalues[up].name != null && text.endsWith(")") == text.startsWith("attempt")
                        ? "attempt to index upvalue '" + p.upvalues[up].name.tojstring() + "' (a " + type + " value)" : text;
            }
            return op == Lua.OP_SETTABLE ? typeError(text, p, pc, stack, a, "index") : text;
        }
        if (text.startsWith("attempt to call a ")) {
            return op == Lua.OP_CALL || op == Lua.OP_TAILCALL ? typeError(text, p, pc, stack, a, "call") : text;
        }
        if (text.startsWith("attempt to get length of ")) {
            return op == Lua.OP_LEN ? typeError(text, p, pc, stack, b, "get length of") : text;
        }
        if (ARITHMETIC.matcher(text).matches()) {
            if (op == Lua.OP_UNM) {
                return typeError(text, p, pc, stack, b, "perform arithmetic on");
            }
            if (op < Lua.OP_ADD || op > Lua.OP_POW) {
                return text;
            }
            // Lua 5.1 names the first operand that is no number (nor a string that reads as one)
            int bad = operand(p, stack, b).tonumber().isnil() ? b : c;
            return Lua.ISK(bad) ? "attempt to perform arithmetic on a " + operand(p, stack, bad).typename() + " value"
                    : typeError(text, p, pc, stack, bad, "perform arithmetic on");
        }
        if (text.startsWith("attempt to concatenate ") && op == Lua.OP_CONCAT) {
            // Lua 5.1 joins from the right: the first pair, from the right, with a value that is no string or number
            for (int r = c - 1; r >= b; r--) {
                if (!stack[r].isstring()) {
                    return typeError(text, p, pc, stack, r, "concatenate");
                }
                if (r == c - 1 && !stack[c].isstring()) {
                    return typeError(text, p, pc, stack, c, "concatenate");
                }
            }
            return text;
        }
        if (text.startsWith("attempt to compare ") && (op == Lua.OP_LT || op == Lua.OP_LE)) {
            String t1 = operand(p, stack, b).typename();
            String t2 = operand(p, stack, c).typename();
            return t1.equals(t2) ? "attempt to compare two " + t1 + " values" : "attempt to compare " + t1 + " with " + t2;
        }
        return text;
    }

    /** Lua 5.1's "attempt to OP local 'x' (a nil value)", or "attempt to OP a nil value" when it names nothing. */
    private static String typeError(String text, Prototype p, int pc, LuaValue[] stack, int reg, String what) {
        String type = reg < stack.length ? stack[reg].typename() : "nil";
        if (!text.contains(type)) {
            return text; // a text of the same words that is not about this value (error() can say anything)
        }
        String name = name(p, pc, reg);
        return name == null ? "attempt to " + what + " a " + type + " value"
                : "attempt to " + what + " " + name + " (a " + type + " value)";
    }

    /** An instruction's RK operand: a constant, or a register's value. */
    private static LuaValue operand(Prototype p, LuaValue[] stack, int rk) {
        return Lua.ISK(rk) ? p.k[Lua.INDEXK(rk)] : rk < stack.length ? stack[rk] : LuaValue.NIL;
    }

    /** @return how Lua 5.1 names register {@code reg} at instruction {@code pc} of {@code p} ({@code local 'x'}), or null if it does not */
    static String name(Prototype p, int pc, int reg) {
        org.luaj.vm2.LuaString local = p.getlocalname(reg + 1, pc);
        if (local != null) {
            return "local '" + local.tojstring() + "'";
        }
        int set = setBy(p, pc, reg);
        if (set < 0) {
            return null;
        }
        int i = p.code[set];
        int op = Lua.GET_OPCODE(i);
        if (op == Lua.OP_MOVE) {
            int b = Lua.GETARG_B(i);
            return b < Lua.GETARG_A(i) ? name(p, set, b) : null;
        }
        if (op == Lua.OP_GETTABUP) {
            int up = Lua.GETARG_B(i);
            boolean env = up < p.upvalues.length && p.upvalues[up].name != null
                    && p.upvalues[up].name.tojstring().equals("_ENV");
            return (env ? "global '" : "field '") + constant(p, Lua.GETARG_C(i)) + "'";
        }
        if (op == Lua.OP_GETTABLE) {
            return "field '" + constant(p, Lua.GETARG_C(i)) + "'";
        }
        if (op == Lua.OP_SELF) {
            return "method '" + constant(p, Lua.GETARG_C(i)) + "'";
        }
        if (op == Lua.OP_GETUPVAL) {
            int up = Lua.GETARG_B(i);
            return up < p.upvalues.length && p.upvalues[up].name != null
                    ? "upvalue '" + p.upvalues[up].name.tojstring() + "'" : null;
        }
        return null;
    }

    /** A table key as Lua 5.1 names it: a string constant's text, else "?". */
    private static String constant(Prototype p, int rk) {
        if (Lua.ISK(rk)) {
            LuaValue k = p.k[Lua.INDEXK(rk)];
            if (k.type() == LuaValue.TSTRING) {
                return k.tojstring();
            }
        }
        return "?";
    }

    /**
     * @return the instruction before {@code lastpc} that last set register {@code reg} on every
     *     way to it (one inside a jump's reach may not have run), or -1
     */
    private static int setBy(Prototype p, int lastpc, int reg) {
        int setreg = -1;
        int jumpTarget = 0;
        for (int pc = 0; pc < lastpc; pc++) {
            int i = p.code[pc];
            int op = Lua.GET_OPCODE(i);
            int a = Lua.GETARG_A(i);
            boolean change;
            if (op == Lua.OP_LOADNIL) {
                change = a <= reg && reg <= a + Lua.GETARG_B(i);
            } else if (op == Lua.OP_TFORCALL) {
                change = reg >= a + 2;
            } else if (op == Lua.OP_CALL || op == Lua.OP_TAILCALL) {
                change = reg >= a;
            } else if (op == Lua.OP_JMP) {
                int dest = pc + 1 + Lua.GETARG_sBx(i);
                if (pc < dest && dest <= lastpc && dest > jumpTarget) {
                    jumpTarget = dest;
                }
                change = false;
            } else {
                change = Lua.testAMode(op) && reg == a;
            }
            if (change) {
                setreg = pc < jumpTarget ? -1 : pc;
            }
        }
        return setreg;
    }
}
