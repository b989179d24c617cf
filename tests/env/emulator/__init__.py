"""Emulator of the Strimzi cluster operator's connector reconcile and offsets handling (see README.md here).

Independent of the ``kubectl_offsets`` package on purpose: it is a second implementation of Strimzi's behaviour
(github.com/strimzi/strimzi-kafka-operator, 0.44.0 to 1.2.0; README.md here names
the classes and tags) so that the plugin's tests can catch the plugin's mistakes.
"""
