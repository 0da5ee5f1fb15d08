package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint file: read once and gone, and a damaged one trusted by no one. */
class ReplicationCheckpointTest {

    private static final String ID = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path dir;

    @Test
    void whatASaveLeavesOneTakeReadsAndRemoves() throws Exception {
        new ReplicationCheckpoint(ID, 12345, 3).save(dir);
        assertEquals(new ReplicationCheckpoint(ID, 12345, 3), ReplicationCheckpoint.take(dir));
        assertFalse(Files.exists(dir.resolve(ReplicationCheckpoint.FILE_NAME)));
        assertNull(ReplicationCheckpoint.take(dir), "a second start finds none");
    }

    @Test
    void aDamagedFileIsPassedOverAndRemoved() throws Exception {
        for (String bad : new String[] {ID + " 12 0", ID + " -1 0\n", ID + " 5\n", ID.substring(1) + " 5 0\n", ID + " 5 6 7\n", "", ID.toUpperCase() + " 5 0\n",
                ID + " 99999999999999999999 0\n"}) {
            Files.writeString(dir.resolve(ReplicationCheckpoint.FILE_NAME), bad);
            assertNull(ReplicationCheckpoint.take(dir), bad);
            assertFalse(Files.exists(dir.resolve(ReplicationCheckpoint.FILE_NAME)));
        }
    }

    /** Any opener of the directory takes it (import-rdb too), so only the very next serve may resume. */
    @Test
    void openingTheDataDirectoryTakesIt() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            s.port();
        }
        new ReplicationCheckpoint(ID, 7, 0).save(dir);
        try (Databases dbs = Databases.open(dir, 16, 0, System::currentTimeMillis)) {
            assertEquals(new ReplicationCheckpoint(ID, 7, 0), dbs.resumable());
        }
        assertFalse(Files.exists(dir.resolve(ReplicationCheckpoint.FILE_NAME)), "a close with nothing to leave writes none");
    }
}
