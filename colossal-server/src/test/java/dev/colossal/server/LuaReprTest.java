package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/** The debugger's forms of values and replies, each as redis-server 7.0's debugger printed it. */
class LuaReprTest {

    @Test
    void numbersAreWrittenAsCsPercentG() {
        assertEquals("13", LuaRepr.number(13));
        assertEquals("1.5", LuaRepr.number(1.5));
        assertEquals("0.1", LuaRepr.number(0.1));
        assertEquals("1e+20", LuaRepr.number(1e20));
        assertEquals("9.0072e+15", LuaRepr.number(Math.pow(2, 53)));
        assertEquals("-0", LuaRepr.number(-0.0));
        assertEquals("inf", LuaRepr.number(Double.POSITIVE_INFINITY));
        assertEquals("-inf", LuaRepr.number(Double.NEGATIVE_INFINITY));
        assertEquals("123457", LuaRepr.number(123456.7));
        assertEquals("1.23457e+06", LuaRepr.number(1234567));
        assertEquals("0.0001", LuaRepr.number(0.0001));
        assertEquals("1e-05", LuaRepr.number(0.00001));
    }

    @Test
    void stringsAreQuotedWithCEscapes() {
        assertEquals("\"a\\\"b\\n\\x00c\"", LuaRepr.of(LuaValue.valueOf("a\"b\n\0c")));
        assertEquals("\"x\\ty\\r\"", LuaRepr.of(LuaValue.valueOf("x\ty\r")));
        assertEquals("\"\\\\\\xc3\\xa9\"", LuaRepr.of(LuaValue.valueOf("\\é".getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void aSequenceIsListedBareAndAnyOtherTableWithItsKeys() {
        LuaTable seq = LuaValue.listOf(new LuaValue[] {LuaValue.valueOf(1), LuaValue.valueOf("two"),
            LuaValue.listOf(new LuaValue[] {LuaValue.valueOf(3)})});
        assertEquals("{1; \"two\"; {3}}", LuaRepr.of(seq));
        LuaTable holed = new LuaTable();
        holed.set(1, LuaValue.valueOf(1));
        holed.set(3, LuaValue.valueOf(3));
        assertEquals("{[1]=1; [3]=3}", LuaRepr.of(holed));
        assertEquals("{}", LuaRepr.of(new LuaTable()));
        LuaTable err = new LuaTable();
        err.set("err", "x");
        assertEquals("{[\"err\"]=\"x\"}", LuaRepr.of(err));
        assertEquals("nil", LuaRepr.of(LuaValue.NIL));
        assertEquals("true", LuaRepr.of(LuaValue.TRUE));
        assertTrue(LuaRepr.of(new org.luaj.vm2.lib.ZeroArgFunction() {
            @Override
            public LuaValue call() {
                return NIL;
            }
        }).matches("\"function@0x[0-9a-f]+\""));
    }

    @Test
    void aTableThatHoldsItselfEnds() {
        LuaTable t = new LuaTable();
        t.set(1, t);
        assertTrue(LuaRepr.of(t).contains("{...}"));
    }

    @Test
    void repliesAreShownAsTheDebuggerLogsThem() {
        assertEquals("\"+OK\"", reply("+OK\r\n"));
        assertEquals("\"-WRONGTYPE Operation\"", reply("-WRONGTYPE Operation\r\n"));
        assertEquals("4", reply(":4\r\n"));
        assertEquals("NULL", reply("$-1\r\n"));
        assertEquals("\"v\"", reply("$1\r\nv\r\n"));
        assertEquals("[]", reply("*0\r\n"));
        assertEquals("[\"a\",\"b\"]", reply("*2\r\n$1\r\na\r\n$1\r\nb\r\n"));
        assertEquals("[1,[NULL,\"x\"]]", reply("*2\r\n:1\r\n*2\r\n$-1\r\n$1\r\nx\r\n"));
    }

    private static String reply(String resp) {
        return LuaRepr.reply(resp.getBytes(StandardCharsets.UTF_8));
    }
}
