package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.luaj.vm2.LuaError;

/**
 * LuaJ's runtime errors as Lua 5.1 words them, which Redis's own tests and clients match: a call of
 * something that is no function, with no variable to name, is "attempt to call a nil value".
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
}
