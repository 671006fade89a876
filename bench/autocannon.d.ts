// The few parts of autocannon the bench uses (it ships no types of its own).
declare module 'autocannon' {
  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each send of this request: returns the request to send (a fresh path or body). */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request | undefined;
  }
  export interface Client {
    setRequests(requests: Request[]): void;
  }
  export interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    /** Seconds before a request counts as timed out (default 10). */
    timeout?: number;
    /** Milliseconds between samples (default 1000); the run also ends only on a sample. */
    sampleInt?: number;
    /** Stop after this many requests instead of after `duration`. */
    amount?: number;
    headers?: Record<string, string>;
    requests?: Request[];
    setupClient?: (client: Client) => void;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
