# The sudoku-batch image for Kubernetes (scripts/k8s-indexed-job.yaml) and other container runs.
#   docker build -t registry.example.com/sudoku-batch:latest .
#   docker run --rm -v "$PWD/data:/data:ro" registry.example.com/sudoku-batch:latest \
#       solve /data/magictour_top1465.txt -q -o /tmp/out.csv
FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs ./
COPY src ./src
COPY data ./data
COPY benches ./benches
COPY examples ./examples
COPY tests ./tests
RUN cargo build --release --locked --bin sudoku-batch

FROM debian:bookworm-slim
RUN useradd --uid 10001 --create-home --shell /usr/sbin/nologin sudoku
COPY --from=build /src/target/release/sudoku-batch /usr/local/bin/sudoku-batch
USER sudoku
WORKDIR /home/sudoku
ENTRYPOINT ["/usr/local/bin/sudoku-batch"]
CMD ["--help"]
