# Web search flow sizes: the distribution measured in a production web-search
# cluster by Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, as
# published in discretized form with the HPCC paper's traffic generator (Li et
# al., "HPCC: High Precision Congestion Control", SIGCOMM 2019).
# Format: size_bytes cumulative_probability; sizes between points are
# interpolated linearly.  Mean flow size: 1711250 bytes.
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
