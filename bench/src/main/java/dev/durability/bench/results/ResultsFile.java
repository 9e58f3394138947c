package dev.durability.bench.results;

import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import jakarta.json.bind.JsonbConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** bench/results.json: read before an experiment runs, written after each one, JSON-B both ways. */
public final class ResultsFile {
    private final Path path;

    public ResultsFile(Path path) {
        this.path = path;
    }

    public Results read() throws IOException {
        if (!Files.exists(path)) {
            return Results.none();
        }
        try (Jsonb jsonb = JsonbBuilder.create()) {
            return jsonb.fromJson(Files.readString(path, StandardCharsets.UTF_8), Results.class);
        } catch (Exception e) {
            throw new IOException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    public void write(Results results) throws IOException {
        try (Jsonb jsonb = JsonbBuilder.create(new JsonbConfig().withFormatting(true))) {
            Files.writeString(path, jsonb.toJson(results) + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("cannot write " + path + ": " + e.getMessage(), e);
        }
    }
}
