import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.graphdb.Relationship;
import org.neo4j.graphdb.Transaction;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.internal.GraphDatabaseAPI;
import org.neo4j.procedure.Description;
import org.neo4j.procedure.Mode;
import org.neo4j.procedure.Procedure;

/**
 * Run Neo4j Community embedded with only the Bolt connector, configured from the environment.
 *
 * NEO4J_HOME      data directory (default ./var/neo4j)
 * NEO4J_BOLT_PORT Bolt port on 127.0.0.1 (default 7687)
 * NEO4J_PASSWORD  when set, auth is on and user neo4j gets this password; unset means auth off
 * NEO4J_PAGECACHE page cache size, e.g. 2g (default 2g: a quarter of what a 24 GiB dev box can spare)
 *
 * Prints "NEO4J READY" once Bolt accepts queries; stops cleanly on SIGTERM.
 *
 * It also offers the portal's disk step a store compaction (CALL portal.storeCompact()): Community has neither
 * `neo4j-admin database copy` nor a way to make a deleted record's bytes go, so the launcher stops serving, copies
 * the live graph into a new store (nodes, relationships, then the same indexes and constraints, built afresh),
 * swaps it in and serves again. The old store files, transaction logs and index folders are deleted whole.
 * CALL portal.storeCompaction() reports the last one.
 */
public class Neo4jLauncher {

    private static final String DATABASE = GraphDatabaseSettings.DEFAULT_DATABASE_NAME;
    private static final int BATCH = 10_000;
    private static Path home;
    private static int port;
    private static String password;
    private static String pageCache;
    private static volatile DatabaseManagementService dbms;
    private static volatile Map<String, Object> lastCompaction = Map.of("status", "never");

    public static void main(String[] args) {
        try {
            run();
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run() throws Exception {
        Map<String, String> env = System.getenv();
        home = Path.of(env.getOrDefault("NEO4J_HOME", "var/neo4j")).toAbsolutePath();
        port = Integer.parseInt(env.getOrDefault("NEO4J_BOLT_PORT", "7687"));
        password = env.getOrDefault("NEO4J_PASSWORD", "");
        pageCache = env.getOrDefault("NEO4J_PAGECACHE", "2g");
        Files.createDirectories(home);
        swapFinish();
        serve();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            synchronized (Neo4jLauncher.class) {
                dbms.shutdown();
            }
            stopped.countDown();
        }));
        System.out.println("NEO4J READY bolt://127.0.0.1:" + port + " data=" + home);
        System.out.flush();
        stopped.await();
    }

    /** Start the served DBMS on Bolt, set the password, register the portal's procedures. */
    private static void serve() throws Exception {
        dbms = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port))
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.auth_enabled, !password.isEmpty())
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pageCache))
                .setConfig(GraphDatabaseSettings.transaction_timeout, Duration.ofMinutes(10))
                .build();
        GraphDatabaseService system = dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME);
        if (!password.isEmpty()) {
            try {
                system.executeTransactionally(
                        "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED", Map.of("password", password));
            } catch (QueryExecutionException e) {
                if (!e.getMessage().contains("cannot be the same")) {
                    throw e;
                }
            }
        }
        GraphDatabaseAPI database = (GraphDatabaseAPI) dbms.database(DATABASE);
        database.getDependencyResolver().resolveDependency(GlobalProcedures.class).registerProcedure(Procedures.class);
        database.executeTransactionally("RETURN 1");
    }

    /** A DBMS without connectors on a home of its own, for the compaction's source or target. */
    private static DatabaseManagementService offline(Path at) {
        return new DatabaseManagementServiceBuilder(at)
                .setConfig(BoltConnector.enabled, false)
                .setConfig(HttpConnector.enabled, false)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pageCache))
                .build();
    }

    /** Compact the store, serving nothing meanwhile; on failure serve the old store again, untouched. */
    static synchronized void compact() {
        Instant started = Instant.now();
        Path target = home.resolve("compact");
        Map<String, Object> result = new HashMap<>();
        result.put("started", started.toString());
        try {
            List<String> schema = new ArrayList<>();
            GraphDatabaseService served = dbms.database(DATABASE);
            schema.addAll(statements(served, "SHOW CONSTRAINTS YIELD createStatement RETURN createStatement"));
            schema.addAll(statements(served, "SHOW INDEXES YIELD createStatement, owningConstraint "
                    + "WHERE owningConstraint IS NULL RETURN createStatement"));
            dbms.shutdown();
            Instant down = Instant.now();
            try {
                deleteTree(target);
                long[] copied = copy(target, schema);
                result.put("nodes", copied[0]);
                result.put("relationships", copied[1]);
                Files.writeString(target.resolve("COMPLETE"), started.toString());
                swapFinish();
                result.put("status", "done");
            } finally {
                serve();
                result.put("downtime_ms", Duration.between(down, Instant.now()).toMillis());
            }
        } catch (Exception e) {
            e.printStackTrace();
            result.put("status", "failed");
            result.put("error", String.valueOf(e));
            try {
                deleteTree(target);
            } catch (IOException ignored) {
                // the next compaction starts by deleting it again
            }
        }
        result.put("seconds", Duration.between(started, Instant.now()).toMillis() / 1000.0);
        lastCompaction = Map.copyOf(result);
        System.out.println("NEO4J COMPACTED " + lastCompaction);
        System.out.flush();
    }

    private static List<String> statements(GraphDatabaseService db, String query) {
        return db.executeTransactionally(query, Map.of(),
                result -> result.stream().map(row -> (String) row.get("createStatement")).toList());
    }

    /** Copy the live graph into a new store at `target`, then build its indexes; return [nodes, relationships]. */
    private static long[] copy(Path target, List<String> schema) throws Exception {
        DatabaseManagementService from = offline(home);
        DatabaseManagementService to = offline(target);
        try {
            GraphDatabaseService source = from.database(DATABASE);
            GraphDatabaseService copy = to.database(DATABASE);
            Map<String, String> ids = new HashMap<>();
            long nodes = 0;
            long relationships = 0;
            try (Transaction read = source.beginTx()) {
                Transaction write = copy.beginTx();
                for (Node node : read.getAllNodes()) {
                    Label[] labels = new Label[0];
                    List<Label> found = new ArrayList<>();
                    node.getLabels().forEach(found::add);
                    Node created = write.createNode(found.toArray(labels));
                    node.getAllProperties().forEach(created::setProperty);
                    ids.put(node.getElementId(), created.getElementId());
                    if (++nodes % BATCH == 0) {
                        write.commit();
                        write = copy.beginTx();
                    }
                }
                write.commit();
                write = copy.beginTx();
                for (Relationship relationship : read.getAllRelationships()) {
                    Node start = write.getNodeByElementId(ids.get(relationship.getStartNode().getElementId()));
                    Node end = write.getNodeByElementId(ids.get(relationship.getEndNode().getElementId()));
                    Relationship created = start.createRelationshipTo(end, relationship.getType());
                    relationship.getAllProperties().forEach(created::setProperty);
                    if (++relationships % BATCH == 0) {
                        write.commit();
                        write = copy.beginTx();
                    }
                }
                write.commit();
            }
            // A new store has lookup indexes of its own names; the old one's statements create them as they were.
            copy.executeTransactionally("SHOW INDEXES YIELD name, type WHERE type = 'LOOKUP' RETURN name", Map.of(),
                    result -> result.stream().map(row -> (String) row.get("name")).toList())
                    .forEach(name -> copy.executeTransactionally("DROP INDEX `" + name + "`"));
            for (String statement : schema) {
                copy.executeTransactionally(statement);
            }
            copy.executeTransactionally("CALL db.awaitIndexes(86400)");
            return new long[] {nodes, relationships};
        } finally {
            from.shutdown();
            to.shutdown();
        }
    }

    /**
     * Put a finished compaction's store and transaction logs in place of the old ones (the system database, which
     * holds the password, stays) and delete the old ones. Run at start too, so a launcher killed between the moves
     * serves the new store (or, when the copy was not finished, the old one).
     */
    private static void swapFinish() throws IOException {
        Path target = home.resolve("compact");
        Path retired = home.resolve("retired");
        boolean complete = Files.exists(target.resolve("COMPLETE"));
        for (String part : List.of("databases", "transactions")) {
            Path live = home.resolve("data").resolve(part).resolve(DATABASE);
            Path old = retired.resolve(part);
            if (complete) {
                Path copy = target.resolve("data").resolve(part).resolve(DATABASE);
                if (Files.exists(copy)) {
                    if (Files.exists(live)) {
                        Files.createDirectories(retired);
                        Files.move(live, old);
                    }
                    Files.move(copy, live);
                }
            } else if (!Files.exists(live) && Files.exists(old)) {
                Files.move(old, live);
            }
        }
        deleteTree(retired);
        deleteTree(target);
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /** The portal's procedures, registered on the served database. */
    public static class Procedures {

        @Procedure(name = "portal.storeCompact", mode = Mode.READ)
        @Description("Compact the store: stop serving, copy the live graph into a new store, serve it. Returns at once.")
        public Stream<Status> storeCompact() {
            Thread worker = new Thread(() -> {
                try {
                    Thread.sleep(500);  // the calling transaction closes first
                } catch (InterruptedException e) {
                    return;
                }
                compact();
            }, "portal-store-compact");
            worker.start();
            return Stream.of(new Status(Map.of("status", "started")));
        }

        @Procedure(name = "portal.storeCompaction", mode = Mode.READ)
        @Description("The last store compaction: status, started, seconds, downtime_ms, nodes, relationships.")
        public Stream<Status> storeCompaction() {
            return Stream.of(new Status(lastCompaction));
        }
    }

    public static class Status {
        public Map<String, Object> compaction;

        public Status(Map<String, Object> compaction) {
            this.compaction = compaction;
        }
    }
}
