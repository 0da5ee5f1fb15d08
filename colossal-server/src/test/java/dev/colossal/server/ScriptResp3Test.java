package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scripts and RESP3 clients: the table forms a script returns ({@code {double=}}, {@code {map=}},
 * ...) and what {@code redis.setresp(3)} changes, as a RESP3 client reads them, byte for byte against
 * redis-server (go-redis, node-redis and the Rust crate talk RESP3 by default or on request; a
 * script's {@code {map=...}} reached them as an empty array). The RESP2 side is in redis-compat.txt.
 */
class ScriptResp3Test {

    @TempDir
    Path dir;

    private static final String[][] SETUP = {
        {"HSET", "h", "f1", "v1"}, {"SADD", "s", "a"}, {"ZADD", "z", "1.5", "a"},
    };

    private static final String[][] SCRIPTS = {
        {"EVAL", "return {double=1.5}", "0"},
        {"EVAL", "return {double=1/0}", "0"},
        {"EVAL", "return {double=0.1}", "0"},
        {"EVAL", "return {double=0/0}", "0"},
        {"EVAL", "return {double='1.5'}", "0"},
        {"EVAL", "return {big_number='123'}", "0"},
        {"EVAL", "return {verbatim_string={format='txt',string='hello'}}", "0"},
        {"EVAL", "return {verbatim_string={format='markdown',string='x'}}", "0"},
        {"EVAL", "return {verbatim_string={format='t',string='x'}}", "0"},
        {"EVAL", "return {map={a=1}}", "0"},
        {"EVAL", "return {map={[1]='x',[2]='y'}}", "0"},
        {"EVAL", "return {map={}}", "0"},
        {"EVAL", "return {map={a={double=2}}}", "0"},
        {"EVAL", "return {set={a=true}}", "0"},
        {"EVAL", "return {1, double=2}", "0"},
        {"EVAL", "return {ok='x', map={a=1}}", "0"},
        {"EVAL", "return false", "0"},
        {"EVAL", "return nil", "0"},
        {"EVAL", "redis.setresp(3); return redis.call('HGETALL', KEYS[1])", "1", "h"},
        {"EVAL", "redis.setresp(3); return true", "0"},
        {"EVAL", "redis.setresp(3); return false", "0"},
        {"EVAL", "redis.setresp(3); return nil", "0"},
        {"EVAL", "redis.setresp(3); return redis.call('SMEMBERS', KEYS[1])", "1", "s"},
        {"EVAL", "redis.setresp(3); return redis.call('ZSCORE', KEYS[1], 'a')", "1", "z"},
        {"EVAL", "redis.setresp(3); return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", "1", "z"},
        {"EVAL", "redis.setresp(3); return redis.call('LPOP', 'nolist')", "0"},
        {"EVAL", "redis.setresp(3); return redis.call('GET', 'nokey')", "0"},
        {"EVAL", "redis.setresp(3); return redis.call('SISMEMBER', KEYS[1], 'a')", "1", "s"},
        {"EVAL", "redis.setresp(3); redis.setresp(2); return redis.call('HGETALL', KEYS[1])", "1", "h"},
        {"EVAL", "return redis.call('HGETALL', KEYS[1])", "1", "h"},
        {"EVAL", "redis.setresp(5)", "0"},
    };

    @Test
    void aRespThreeClientReadsScriptTablesAndSetrespRepliesAsRedisWritesThem() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            List<String> got = replies(s.port());
            // Pinned without redis-server too: the forms go-redis and node-redis read as values
            assertEquals(",1.5\r\n", got.get(0));
            assertEquals("%1\r\n$1\r\na\r\n:1\r\n", got.get(9));
            assertEquals("~1\r\n$1\r\na\r\n", got.get(13));
            assertEquals("%1\r\n$2\r\nf1\r\n$2\r\nv1\r\n", got.get(18));
            assertEquals("#f\r\n", got.get(20));
            assertEquals(",1.5\r\n", got.get(23));
            List<String> want = new ArrayList<>();
            TestServers.onRedis(port -> want.addAll(replies(port)));
            for (int i = 0; i < want.size(); i++) {
                assertEquals(want.get(i).replace("\r\n", "\\r\\n"), got.get(i).replace("\r\n", "\\r\\n"),
                        String.join(" ", SCRIPTS[i]));
            }
        }
    }

    private static List<String> replies(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (Wire w = new Wire(port)) {
            w.call("HELLO", "3"); // its reply holds the connection's id, which differs
            w.call("FLUSHALL");
            for (String[] c : SETUP) {
                w.call(c);
            }
            for (String[] c : SCRIPTS) {
                out.add(w.call(c));
            }
        }
        return out;
    }
}
