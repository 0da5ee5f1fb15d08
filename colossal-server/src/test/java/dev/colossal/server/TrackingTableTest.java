package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The table of keys tracking clients read stays within its bound (Redis's tracking-table-max-keys):
 * a key dropped from it is invalidated for its reader, which would otherwise cache it for ever.
 */
class TrackingTableTest {

    @Test
    void keysPastTheBoundAreForgottenAndTheirReadersTold() {
        Map<Long, Client> clients = new ConcurrentHashMap<>();
        Client reader = new Client(7, "127.0.0.1:1", 0, true);
        reader.reply.protocol = 3;
        clients.put(reader.id, reader);
        Tracking tracking = new Tracking(clients, 100);
        tracking.enable(reader, new Tracking.Mode(false, false, false, false, 0, List.of()));
        for (int i = 0; i < 150; i++) {
            tracking.read(reader, ("key:" + i).getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(100, tracking.keys(), "the table keeps its bound");
        long told = reader.subscriber.mailbox.queuedBytes();
        assertTrue(told > 0, "the forgotten keys' invalidations wait in the reader's mailbox");
        // each of the 50 forgotten keys is one invalidate push of its name
        long one = 4 + "$10\r\ninvalidate\r\n".length() + "*1\r\n$5\r\nkey:0\r\n".length();
        assertTrue(told >= 50 * one, told + " bytes for 50 invalidations of at least " + one);
    }

    @Test
    void configSetLowersTheBoundAtOnceAndZeroMeansNone() {
        Map<Long, Client> clients = new ConcurrentHashMap<>();
        Client reader = new Client(7, "127.0.0.1:1", 0, true);
        reader.reply.protocol = 3;
        clients.put(reader.id, reader);
        Tracking tracking = new Tracking(clients);
        tracking.enable(reader, new Tracking.Mode(false, false, false, false, 0, List.of()));
        for (int i = 0; i < 250; i++) {
            tracking.read(reader, ("key:" + i).getBytes(StandardCharsets.UTF_8));
        }
        tracking.maxKeys(1);
        assertEquals(1, tracking.keys(), "249 forgotten as the bound is set, none waiting for a read");
        tracking.maxKeys(0);
        for (int i = 0; i < 250; i++) {
            tracking.read(reader, ("key:" + i).getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(250, tracking.keys(), "0: no bound");
    }
}
