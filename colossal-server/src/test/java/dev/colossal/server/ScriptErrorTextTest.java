package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.luaj.vm2.LuaError;

/**
 * LuaJ's errors as Lua 5.1 words them, which Redis's own tests and clients match: a call of
 * something that is no function, with no variable to name, is "attempt to call a nil value"; a
 * compile error names the token it stopped at; numbers Lua 5.1 refuses are refused.
 */
class ScriptErrorTextTest {

    @Test
    void aCallOfNoFunctionIsWordedAsLua51WordsIt() {
        assertEquals("ERR attempt to call a nil value", ScriptCommands.errorText(new LuaError("attempt to call nil")));
        assertEquals("ERR user_script:3: attempt to call a number value",
                ScriptCommands.errorText(new LuaError("@user_script:3 attempt to call number\n")));
        // a text that names its variable is left as it is
        assertEquals("ERR attempt to call field 'x' (a nil value)",
                ScriptCommands.errorText(new LuaError("attempt to call field 'x' (a nil value)")));
    }

    private static String compileError(String script) {
        byte[] b = script.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        return assertThrows(LuaError.class, () -> LuaSandbox.compile(b)).getMessage();
    }

    @Test
    void aCompileErrorNamesTheTokenItStoppedAt() {
        assertEquals("user_script:1: '=' expected near '1'", compileError("x 1"));
        assertEquals("user_script:1: '=' expected near '<eof>'", compileError("local x x"));
        assertEquals("user_script:1: '}' expected near 'b'", compileError("return {a=1 b=2}"));
        assertEquals("user_script:1: '<eof>' expected near '\"d\"'", compileError("return \"abc\" \"d\""));
        assertEquals("user_script:1: '<name>' expected near '1'", compileError("local 1 = 2"));
        assertEquals("user_script:2: unexpected symbol near '='", compileError("local a = 1\nlocal b = = 2"));
        assertEquals("user_script:1: unexpected symbol near ','", compileError("f(), x = 1"));
        assertEquals("user_script:1: syntax error near 'y'", compileError("(x) y = 1"));
        assertEquals("user_script:1: no loop to break near '<eof>'", compileError("break"));
    }

    @Test
    void numbersAndStringsLua51RefusesAreRefusedAsItWordsIt() {
        assertEquals("user_script:1: malformed number near '0x'", compileError("return 0x"));
        assertEquals("user_script:1: malformed number near '1..2'", compileError("return 1..2"));
        assertEquals("user_script:1: malformed number near '3e+'", compileError("return 3e+"));
        assertEquals("user_script:1: unfinished string near '<eof>'", compileError("return 'abc"));
        assertEquals("user_script:1: unfinished string near ''a'", compileError("return 'a\nb'"));
        assertEquals("user_script:1: escape sequence too large near '\"'", compileError("return \"\\300\""));
        assertEquals("user_script:1: invalid long string delimiter near '[='", compileError("return [=x"));
        // a syntax error before the bad number is the one reported, as Lua 5.1 reads as it parses
        assertEquals("user_script:1: unexpected symbol near '='", compileError("x = = 0x"));
    }

    @Test
    void strtodReadsWhatCReads() {
        assertEquals(4, Lua51Lexer.strtodLength("0xff"));
        assertEquals(5, Lua51Lexer.strtodLength("0x1p4"));
        assertEquals(1, Lua51Lexer.strtodLength("0x"));
        assertEquals(3, Lua51Lexer.strtodLength("0x1P"));
        assertEquals(1, Lua51Lexer.strtodLength("3e"));
        assertEquals(5, Lua51Lexer.strtodLength("1e400"));
        assertEquals(2, Lua51Lexer.strtodLength(".5"));
        assertEquals(0, Lua51Lexer.strtodLength("."));
    }
}
