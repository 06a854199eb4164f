package kgrag.neo4j;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.neo4j.cypher.internal.QueryCache;
import org.neo4j.cypher.internal.cache.CacheTracer;
import org.neo4j.monitoring.Monitors;

/**
 * Writes Cypher's query-cache events to a file, one line each: every time a statement is planned because no plan
 * was cached for it (a miss) or its cached plan was found stale (a replan), in the executable-query cache (keyed by
 * the statement's text) and the logical-plan cache (keyed by its syntax tree: the planner proper). Neo4j community
 * has no query log to tell which statements it plans; benchmarks read this one (scripts/bench/neo4j-profile.ts).
 *
 * <p>Line: {@code epochMillis TAB cache TAB event TAB txStateHasChanges TAB parameter types TAB statement}, the
 * statement's text, or its key's hash for the logical-plan cache; tabs and line breaks folded into spaces.
 */
final class PlanLog implements CacheTracer<Object> {
    /** Cypher's monitor tags, {@code cypher.cache.<kind>}. */
    private static final String[] CACHES = {"executable_query", "logical_plan"};

    private final String cache;
    private final PrintWriter out;

    private PlanLog(String cache, PrintWriter out) {
        this.cache = cache;
        this.out = out;
    }

    /** Listens to the database's query caches (Cypher reports to them only with its cache monitors enabled). */
    static void install(Monitors monitors, Path file) throws IOException {
        PrintWriter out = new PrintWriter(
                Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND),
                true);
        for (String cache : CACHES) {
            monitors.addMonitorListener(new PlanLog(cache, out), "cypher.cache." + cache);
        }
    }

    @Override
    public void cacheMiss(Object key, String metaData) {
        write("miss", key);
    }

    @Override
    public void cacheStale(Object key, int secondsSincePlan, String metaData, scala.Option<String> reason) {
        write("stale", key);
    }

    private void write(String event, Object key) {
        String tx = "";
        String parameters = "";
        Object statement = key;
        if (key instanceof QueryCache.CacheKey<?> k) {
            tx = String.valueOf(k.txStateHasChanges());
            parameters = String.valueOf(k.parameterTypeMap());
            statement = k.queryRep();
        }
        String text = cache.equals("logical_plan") ? Integer.toHexString(String.valueOf(statement).hashCode()) : String.valueOf(statement);
        String line = String.join("\t", String.valueOf(System.currentTimeMillis()), cache, event, tx, fold(parameters), fold(text));
        synchronized (out) {
            out.println(line);
        }
    }

    private static String fold(String s) {
        return s.replaceAll("[\\t\\r\\n]+", " ");
    }
}
