# Hadoop flow sizes: the Facebook Hadoop cluster distribution of Roy, Zeng,
# Bagga, Porter, Snoeren, "Inside the Social Network's (Datacenter) Network",
# SIGCOMM 2015, as published in discretized form with the HPCC paper's traffic
# generator (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019).
# Format: size_bytes cumulative_probability; sizes between points are
# interpolated linearly.  Mean flow size: 120421 bytes.
0 0
100 0.01
200 0.02
300 0.05
350 0.15
400 0.2
500 0.3
600 0.4
700 0.5
1000 0.6
2000 0.67
7000 0.7
30000 0.72
50000 0.82
80000 0.87
120000 0.9
300000 0.95
1000000 0.975
2000000 0.99
10000000 1
