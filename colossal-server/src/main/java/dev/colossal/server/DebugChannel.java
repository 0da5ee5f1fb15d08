package dev.colossal.server;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The connection a Lua debugging session ({@link LuaDebugger}) talks over while its script is
 * stopped: it writes and reads the socket itself, blocking its event loop, as Redis's synchronous
 * debugger blocks its server, since the script cannot go on until the user answers.
 */
interface DebugChannel {

    /** Writes the replies already waiting for this client, then {@code bytes}, before it returns. */
    void send(byte[] bytes) throws IOException;

    /**
     * Reads what the client sent into {@code into}, the bytes it sent behind the request that
     * started the session first.
     *
     * @return bytes read: 0 if none came in {@code waitMillis}, -1 if the client closed its side
     */
    int read(ByteBuffer into, long waitMillis) throws IOException;

    /** Ends what the session opened to wait on the socket; the connection goes on as before. */
    void release();
}
