package dev.colossal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lettuce.core.GeoArgs;
import io.lettuce.core.GeoSearch;
import io.lettuce.core.GeoWithin;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SortArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.GeoCoordinate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.GeoUnit;
import redis.clients.jedis.params.GeoRadiusParam;
import redis.clients.jedis.params.GeoSearchParam;
import redis.clients.jedis.params.LCSParams;
import redis.clients.jedis.params.SortingParams;
import redis.clients.jedis.resps.GeoRadiusResponse;
import redis.clients.jedis.resps.LCSMatchResult;

/**
 * GEO, SORT and LCS as unmodified clients call them: Jedis in RESP2 (what Spring Data Redis's
 * Jedis driver sends), Lettuce in RESP3 (coordinates and scores as doubles, IDX as a map).
 */
class GeoSortLcsClientsTest {

    @TempDir
    Path dir;

    @Test
    void jedisReadsGeoSortAndLcsReplies() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir);
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertEquals(2, j.geoadd("Sicily", java.util.Map.of("Palermo", new GeoCoordinate(13.361389, 38.115556),
                    "Catania", new GeoCoordinate(15.087269, 37.502669))));
            assertEquals(166.2742, j.geodist("Sicily", "Palermo", "Catania", GeoUnit.KM));
            assertEquals(13.36138933897018433, j.geopos("Sicily", "Palermo").get(0).getLongitude());
            assertEquals(List.of("sqc8b49rny0"), j.geohash("Sicily", "Palermo"));
            List<GeoRadiusResponse> near = j.geosearch("Sicily",
                    GeoSearchParam.geoSearchParam().fromLonLat(15, 37).byRadius(200, GeoUnit.KM).asc().withDist().withCoord());
            assertEquals(List.of("Catania", "Palermo"), near.stream().map(GeoRadiusResponse::getMemberByString).toList());
            assertEquals(56.4413, near.get(0).getDistance());
            assertEquals(37.50266842333162, near.get(0).getCoordinate().getLatitude(), 1e-12);
            List<GeoRadiusResponse> old = j.georadius("Sicily", 15, 37, 100, GeoUnit.KM,
                    GeoRadiusParam.geoRadiusParam().withHash().count(1));
            assertEquals(3479447370796909L, old.get(0).getRawScore());
            assertEquals(1, j.geosearchStore("near", "Sicily",
                    GeoSearchParam.geoSearchParam().fromMember("Catania").byBox(10, 10, GeoUnit.KM)));

            j.rpush("ids", "3", "1", "2");
            j.mset("w_1", "30", "w_2", "10", "w_3", "20", "name_1", "ann", "name_2", "bob", "name_3", "cy");
            assertEquals(List.of("2", "bob", "3", "cy", "1", "ann"),
                    j.sort("ids", new SortingParams().by("w_*").get("#", "name_*")));
            assertEquals(2, j.sort("ids", new SortingParams().desc().limit(0, 2), "top"));
            assertEquals(List.of("3", "2"), j.lrange("top", 0, -1));

            j.mset("a", "ohmytext", "b", "mynewtext");
            assertEquals("mytext", j.lcs("a", "b", LCSParams.LCSParams()).getMatchString());
            LCSMatchResult idx = j.lcs("a", "b", LCSParams.LCSParams().idx().minMatchLen(4).withMatchLen());
            assertEquals(6, idx.getLen());
            assertEquals(1, idx.getMatches().size());
            assertEquals(4, idx.getMatches().get(0).getA().getStart());
            assertEquals(8, idx.getMatches().get(0).getB().getEnd());
            assertEquals(4, idx.getMatches().get(0).getMatchLen());
        }
    }

    @Test
    void lettuceReadsThemInResp3() throws Exception {
        try (ColossalServer s = TestServers.colossal(dir)) {
            RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", s.port()));
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> l = c.sync();
                assertEquals(2, l.geoadd("Sicily", 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"));
                List<GeoWithin<String>> near = l.geosearch("Sicily", GeoSearch.fromCoordinates(15, 37),
                        GeoSearch.byRadius(200, GeoArgs.Unit.km), GeoArgs.Builder.full().asc());
                assertEquals("Catania", near.get(0).getMember());
                assertEquals(56.4413, near.get(0).getDistance());
                assertEquals(15.08726745843887329, near.get(0).getCoordinates().getX().doubleValue());
                assertEquals(190.4424, near.get(1).getDistance());
                assertEquals(166.2742, l.geodist("Sicily", "Palermo", "Catania", GeoArgs.Unit.km));
                l.rpush("ids", "3", "1", "2");
                assertEquals(List.of("3", "2", "1"), l.sort("ids", SortArgs.Builder.desc()));
            } finally {
                client.shutdown();
            }
        }
    }
}
